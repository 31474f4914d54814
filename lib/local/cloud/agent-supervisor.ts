/**
 * Simulated GPU instances: when an instance of the EC2 shim reaches `running`, a real host-agent process starts
 * for it (simulated GPUs of the instance type's kind and count, desired state from the Hosts table, telemetry to
 * the telemetry queue); when the instance shuts down, its agent and workers are stopped. Killing an agent by hand
 * leaves the instance running with no heartbeat, as a crashed agent on EC2 would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getInstanceOffering } from '../../core/catalog/instances.ts';
import type { Instance } from '../endpoint/ec2/types.ts';
import type { LocalEventBus } from '../endpoint/events/bus.ts';
import { localHostCredentials } from '../endpoint/sqs-sender.ts';
import { CLOUD_RUN_ENV, INSTANCE_ENV, pidsWithEnv, signalAll } from './process-marks.ts';

export interface AgentSupervisorOptions {
  /** The agent bundle (agents/host/build.ts → agent.mjs), as user data installs it on EC2. */
  readonly agentBundle: string;
  readonly runId: string;
  readonly stateDir: string;
  readonly endpointUrl: string;
  readonly region: string;
  readonly hostsTable: string;
  /**
   * `arn:…:instance/`: agents read their desired state (and job-data credentials) from the copy keyed by their
   * instance ARN, as on EC2; absent = from the host item itself.
   */
  readonly desiredKeyPrefix?: string;
  readonly telemetryQueueUrl: string;
  /** The bucket agents ship worker output to (through the endpoint's S3); none: logs stay on the host. */
  readonly logsBucket?: string;
  readonly bus: LocalEventBus;
  readonly instances: () => readonly Instance[];
  /** Seconds an agent may take to drain on SIGTERM before it and its workers are killed. */
  readonly drainSeconds?: number;
  readonly log?: (line: string) => void;
}

export interface AgentProcess {
  readonly instanceId: string;
  readonly instanceType: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

export class AgentSupervisor {
  private readonly agents = new Map<string, AgentProcess>();
  private unsubscribe: (() => void) | undefined;
  private stopping = false;

  constructor(private readonly options: AgentSupervisorOptions) {}

  /** Starts agents for instances already running (after a restart) and follows EC2 state changes. */
  start(): void {
    this.unsubscribe = this.options.bus.onEvent((event) => {
      if (event.source !== 'aws.ec2' || event['detail-type'] !== 'EC2 Instance State-change Notification')
        return;
      const detail = event.detail as { 'instance-id': string; state: string };
      if (detail.state === 'running') this.launch(detail['instance-id']);
      else if (detail.state === 'shutting-down' || detail.state === 'terminated')
        void this.stopAgent(detail['instance-id']);
    });
    for (const instance of this.options.instances())
      if (instance.state === 'running') this.launch(instance.instanceId);
  }

  /** Live agents by instance id. */
  running(): readonly AgentProcess[] {
    return [...this.agents.values()];
  }

  private launch(instanceId: string): void {
    if (this.stopping || this.agents.has(instanceId)) return;
    const instance = this.options.instances().find((i) => i.instanceId === instanceId);
    if (!instance) return;
    const offering = getInstanceOffering(instance.instanceType);
    const dir = join(this.options.stateDir, 'agents', instanceId);
    mkdirSync(dir, { recursive: true });
    const log = openSync(join(dir, 'agent.log'), 'a');
    const o = this.options;
    const hostCredentials = localHostCredentials(instanceId);
    const child = spawn(
      process.execPath,
      [
        o.agentBundle,
        '--mode=local',
        `--host-id=${instanceId}`,
        `--state-dir=${dir}`,
        `--desired-state=dynamodb:${o.hostsTable}`,
        ...(o.desiredKeyPrefix ? [`--desired-key=${o.desiredKeyPrefix}${instanceId}`] : []),
        `--telemetry=sqs:${o.telemetryQueueUrl}`,
        `--gpus=sim:${offering.gpus}x${offering.gpuType}`,
        // The instance's private address on the EC2 shim (127.0.x.y, all loopback): the rendezvous of its jobs.
        `--address=${instance.privateIpAddress}`,
        '--poll-ms=1000',
        '--heartbeat-ms=5000',
        '--flush-ms=500',
        '--progress-interval-ms=2000',
        '--checkpoint-timeout-ms=15000',
        `--drain-timeout-ms=${(o.drainSeconds ?? 10) * 1000}`,
        '--backoff-base-ms=1000',
        ...(o.logsBucket ? [`--logs=s3://${o.logsBucket}`, '--log-flush-seconds=1'] : []),
      ],
      {
        cwd: fileURLToPath(new URL('../../../', import.meta.url)),
        env: {
          ...process.env,
          AWS_ENDPOINT_URL: o.endpointUrl,
          AWS_REGION: o.region,
          // The host's own credential: the endpoint stamps its telemetry with this instance as the sender.
          AWS_ACCESS_KEY_ID: hostCredentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: hostCredentials.secretAccessKey,
          [CLOUD_RUN_ENV]: o.runId,
          [INSTANCE_ENV]: instanceId,
        },
        stdio: ['ignore', log, log],
        // Its own process group: a Ctrl-C in the terminal reaches only the local cloud, which stops agents in order.
        detached: true,
      },
    );
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const agent = { instanceId, instanceType: instance.instanceType, child, exited };
    this.agents.set(instanceId, agent);
    void exited.then(() => {
      if (this.agents.get(instanceId) === agent) this.agents.delete(instanceId);
    });
    o.log?.(
      `instance ${instanceId} (${instance.instanceType}, ${offering.gpus} × ${offering.gpuType}) running: agent pid ${child.pid}`,
    );
  }

  /** SIGTERM (the agent checkpoints and drains), then SIGKILL for whatever of the instance is left. */
  private async stopAgent(instanceId: string): Promise<void> {
    const agent = this.agents.get(instanceId);
    if (agent) {
      agent.child.kill('SIGTERM');
      const drained = await Promise.race([
        agent.exited.then(() => true),
        sleep((this.options.drainSeconds ?? 10) * 1000 + 2000).then(() => false),
      ]);
      if (!drained) agent.child.kill('SIGKILL');
    }
    signalAll(pidsWithEnv(INSTANCE_ENV, instanceId), 'SIGKILL');
  }

  /** Stops every agent and kills every process of this run that is left (workers of killed agents included). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    await Promise.all([...this.agents.keys()].map((id) => this.stopAgent(id)));
    const left = pidsWithEnv(CLOUD_RUN_ENV, this.options.runId).filter((pid) => pid !== process.pid);
    signalAll(left, 'SIGKILL');
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
