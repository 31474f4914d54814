/**
 * Simulated hosts as real host-agent processes (the bundle as on EC2) against a test's control plane, each marked
 * so the test can kill the whole host (agent and workers) and find what it left running; and the schedule rule as
 * a timer. Shared by the tests that run agents as processes (integration/gang, faults/fence).
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { join } from 'node:path';
import { tableNames } from '../../../lib/aws/environment.ts';
import type { HostItem } from '../../../lib/aws/items/host-item.ts';
import { pidsWithEnv, signalAll } from '../../../lib/local/cloud/process-marks.ts';
import { localHostCredentials } from '../../../lib/local/endpoint/index.ts';
import { eventually, invokeRound } from './fixtures.ts';
import { type ControlPlane, REGION } from './local-stack.ts';

export interface AgentHostsOptions {
  readonly cp: ControlPlane;
  /** The bundled agent (agents/host/build.ts). */
  readonly bundle: string;
  /** Each host's state directory is `<dir>/<hostId>`. */
  readonly dir: string;
  /** The variable every process of a host inherits; its value is `<run>/<hostId>`. */
  readonly mark: string;
  /** This run's own value: a concurrent run of the same test (same host ids) is never touched. */
  readonly run: string;
}

export interface AgentHostOptions {
  /** Where the agent reaches the endpoint (default: the control plane's own URL). */
  readonly endpointUrl?: string;
  readonly env?: Record<string, string>;
  readonly stdio?: StdioOptions;
}

/** Agent processes of simulated hosts with 2 A10G each, quick to poll, beat and flush. */
export class AgentHosts {
  readonly agents = new Map<string, ChildProcess>();
  /** Every pid started or found on a host, for the orphan check. */
  readonly pids = new Set<number>();

  constructor(private readonly options: AgentHostsOptions) {}

  start(hostId: string, host: AgentHostOptions = {}): ChildProcess {
    const { cp, bundle, dir, mark, run } = this.options;
    const credentials = localHostCredentials(hostId);
    const child = spawn(
      process.execPath,
      [
        bundle,
        '--mode=local',
        `--host-id=${hostId}`,
        `--state-dir=${join(dir, hostId)}`,
        `--desired-state=dynamodb:${tableNames(cp.runner.environment('round')).hosts}`,
        `--telemetry=sqs:${cp.queueUrl('QueuesTelemetry')}`,
        '--gpus=sim:2xA10G',
        '--address=127.0.0.1',
        '--poll-ms=300',
        '--heartbeat-ms=1000',
        '--flush-ms=200',
        '--progress-interval-ms=1000',
        '--checkpoint-timeout-ms=10000',
      ],
      {
        env: {
          ...process.env,
          AWS_ENDPOINT_URL: host.endpointUrl ?? cp.endpointUrl,
          AWS_REGION: REGION,
          AWS_ACCESS_KEY_ID: credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          ...host.env,
          [mark]: `${run}/${hostId}`,
        },
        stdio: host.stdio ?? 'ignore',
        detached: true,
      },
    );
    if (child.pid !== undefined) this.pids.add(child.pid);
    this.agents.set(hostId, child);
    return child;
  }

  /** Live processes of a host: its agent and every worker it started. */
  processesOf(hostId: string): number[] {
    return pidsWithEnv(this.options.mark, `${this.options.run}/${hostId}`);
  }

  /** The host dies: its agent and every worker it started, at once. */
  kill(hostId: string): number[] {
    const all = this.processesOf(hostId);
    for (const pid of all) this.pids.add(pid);
    signalAll(all, 'SIGKILL');
    return all;
  }

  /** Waits until every host is active in the Hosts table (and `ready` holds for it, if given). */
  async registered(
    hostIds: readonly string[],
    what: string,
    ready: (host: HostItem) => boolean = () => true,
  ): Promise<void> {
    await eventually(
      async () => {
        const hosts = await Promise.all(hostIds.map((h) => this.options.cp.hosts.get(h)));
        return hosts.every((h) => h?.state === 'active' && ready(h)) ? true : undefined;
      },
      what,
      30_000,
    );
  }
}

/** The schedule rule: a round every second until the returned stop is called (a round under way finishes). */
export const roundEverySecond = (cp: ControlPlane): (() => void) => {
  let timer: NodeJS.Timeout | undefined;
  let running = true;
  const tick = () => {
    timer = setTimeout(async () => {
      await invokeRound(cp).catch(() => undefined);
      if (running) tick();
    }, 1_000);
  };
  tick();
  return () => {
    running = false;
    clearTimeout(timer);
  };
};
