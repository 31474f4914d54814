/** Shared test helpers for the host agent suites (not a test file itself). */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AgentTimings, HostAgent } from '../../../agents/host/agent.ts';
import { SimulatedGpuDiscovery } from '../../../agents/host/discovery/simulated-gpus.ts';
import { InMemoryDesiredStateSource } from '../../../agents/host/ports/desired-state-source.ts';
import { InMemoryTelemetrySink } from '../../../agents/host/ports/telemetry-sink.ts';
import { processLauncher, type WorkerLauncher } from '../../../agents/host/process/worker-launcher.ts';
import type { WorkspaceLauncher } from '../../../agents/host/workspace/workspace-launcher.ts';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';

export const SIM_TRAINER = resolve(import.meta.dirname, '../../../agents/host/sim-trainer.mjs');
export const FIXTURES = resolve(import.meta.dirname, 'fixtures');

export function tempDir(prefix = 'tessera-agent-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export function fileUri(path: string): string {
  return pathToFileURL(path).href;
}

/** A port that was free a moment ago (bind to 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function waitFor<T>(
  probe: () => T | undefined | null | false,
  description: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 10));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Asserts (after a short grace period for reaping) that none of the pids exists any more. */
export async function assertNoOrphans(pids: Iterable<number>): Promise<void> {
  const all = [...new Set(pids)];
  const deadline = Date.now() + 3_000;
  while (all.some(isAlive) && Date.now() < deadline) await sleep(20);
  const alive = all.filter(isAlive);
  for (const pid of alive) killQuietly(pid); // do not leak them into other tests even when failing
  assert.deepEqual(alive, [], `processes left running: ${alive.join(', ')}`);
}

export function killQuietly(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Wraps the real launcher and remembers every pid it started or adopted. */
export function recordingLauncher(pids = new Set<number>()): { launcher: WorkerLauncher; pids: Set<number> } {
  return {
    pids,
    launcher: {
      launch(spec) {
        const handle = processLauncher.launch(spec);
        if (handle.pid !== null) pids.add(handle.pid);
        return handle;
      },
      adopt(identity) {
        const handle = processLauncher.adopt(identity);
        if (handle?.pid) pids.add(handle.pid);
        return handle;
      },
    },
  };
}

export const FAST_TIMINGS: AgentTimings = {
  pollIntervalMs: 20,
  heartbeatIntervalMs: 200,
  tickIntervalMs: 10,
  telemetryFlushIntervalMs: 20,
  spotPollIntervalMs: 20,
  checkpointTimeoutMs: 5_000,
  spotDeadlineMs: 5_000,
  drainTimeoutMs: 5_000,
  maxCrashes: 3,
  backoffBaseMs: 50,
  backoffMaxMs: 1_000,
  progressIntervalMs: 0,
};

export interface SimJobOptions {
  jobId: string;
  jobGeneration: number;
  worldSize: number;
  maxP?: number;
  /** GPU of each rank (one GPU per worker). */
  gpus: number[];
  /** ESTs of each rank. */
  ests?: number[][];
  totalSteps: number;
  checkpointDir: string;
  resumeStep?: number;
  masterPort: number;
  stepMs?: number;
  stepLog?: string;
  trainerArgs?: string[];
  env?: Record<string, string>;
}

/** Desired state of one job running the simulated trainer. */
export function simJob(options: SimJobOptions): DesiredJob {
  return {
    jobId: options.jobId,
    jobGeneration: options.jobGeneration,
    worldSize: options.worldSize,
    ...(options.maxP ? { maxP: options.maxP } : {}),
    totalSteps: options.totalSteps,
    checkpointUri: fileUri(options.checkpointDir),
    resumeStep: options.resumeStep ?? -1,
    masterAddr: '127.0.0.1',
    masterPort: options.masterPort,
    command: [
      process.execPath,
      SIM_TRAINER,
      '--step-ms',
      String(options.stepMs ?? 20),
      ...(options.stepLog ? ['--step-log', options.stepLog] : []),
      ...(options.trainerArgs ?? []),
    ],
    ...(options.env ? { env: options.env } : {}),
    workers: options.gpus.map((gpu, rank) => ({
      rank,
      localRank: rank,
      gpuIndices: [gpu],
      ...(options.ests ? { ests: options.ests[rank]! } : {}),
    })),
  };
}

/** The `jobs` of a desired state holding just this one job. */
export const simJobs = (options: SimJobOptions): DesiredJob[] => [simJob(options)];

export interface StepLogLine {
  jobId: string;
  generation: number;
  rank: number;
  step: number;
  state: number;
  pid: number;
  time: number;
}

export function readStepLog(path: string): StepLogLine[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StepLogLine);
}

export interface AgentHarness {
  agent: HostAgent;
  desired: InMemoryDesiredStateSource;
  telemetry: InMemoryTelemetrySink;
  pids: Set<number>;
  stateDir: string;
}

/** An agent on a simulated 8-GPU host with in-memory desired state and telemetry. */
export function agentHarness(options: {
  hostId?: string;
  stateDir: string;
  timings?: Partial<AgentTimings>;
  desired?: InMemoryDesiredStateSource;
  telemetry?: InMemoryTelemetrySink;
  pids?: Set<number>;
  spotNotices?: ConstructorParameters<typeof HostAgent>[0]['spotNotices'];
  checkpointStaging?: ConstructorParameters<typeof HostAgent>[0]['checkpointStaging'];
  gpuCount?: number;
  logSink?: ConstructorParameters<typeof HostAgent>[0]['logSink'];
  logLimits?: ConstructorParameters<typeof HostAgent>[0]['logLimits'];
  /** Runs jobs that bring their own code (around the recording launcher). */
  workspaces?: WorkspaceLauncher;
}): AgentHarness {
  const { launcher, pids } = recordingLauncher(options.pids);
  const desired = options.desired ?? new InMemoryDesiredStateSource();
  const telemetry = options.telemetry ?? new InMemoryTelemetrySink();
  const hostId = options.hostId ?? 'host-a';
  const agent = new HostAgent({
    hostId,
    identity: {
      instanceId: 'i-0123456789abcdef0',
      instanceType: 'p4d.24xlarge',
      availabilityZone: 'us-east-1a',
    },
    topology: { rack: 'nn-rack', network: 'nn-top', nodes: ['nn-top', 'nn-mid', 'nn-rack'] },
    gpus: new SimulatedGpuDiscovery({ count: options.gpuCount ?? 8, type: 'A100', hostId }),
    desiredState: desired,
    telemetry,
    stateDir: options.stateDir,
    timings: { ...FAST_TIMINGS, ...options.timings },
    launcher,
    spotNotices: options.spotNotices ?? null,
    checkpointStaging: options.checkpointStaging ?? null,
    ...(options.logSink ? { logSink: options.logSink } : {}),
    ...(options.logLimits ? { logLimits: options.logLimits } : {}),
    workspaces: options.workspaces ?? null,
  });
  return { agent, desired, telemetry, pids, stateDir: options.stateDir };
}
