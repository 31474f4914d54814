/**
 * The agent's side of the trainer protocol (docs/host-agent.md, docs/trainer-protocol.md):
 * the environment a worker is started with, the report lines it prints and what its exit code means.
 */
import { z } from 'zod';
import type { DesiredJob, DesiredWorker } from './desired-state.ts';

export const EXIT_FINISHED = 0;
export const EXIT_BAD_CONFIGURATION = 2;
export const EXIT_CHECKPOINTED = 75;
/** A peer of the gang is gone (rendezvous incomplete, connection lost, collective timed out): not this worker's fault. */
export const EXIT_GANG_BROKEN = 76;

/** Variables the agent owns; a job's `env` may not override them. */
export const MANAGED_ENV_NAMES = [
  'TESSERA_JOB_ID',
  'TESSERA_GENERATION',
  'TESSERA_RANK',
  'TESSERA_WORLD_SIZE',
  'TESSERA_LOCAL_RANK',
  'TESSERA_MASTER_ADDR',
  'TESSERA_MASTER_PORT',
  'TESSERA_MAX_P',
  'TESSERA_ESTS',
  'TESSERA_TOTAL_STEPS',
  'TESSERA_CHECKPOINT_URI',
  'TESSERA_RESUME_STEP',
  'CUDA_VISIBLE_DEVICES',
  // What torch.distributed's env:// init (and torchrun-style code) reads.
  'MASTER_ADDR',
  'MASTER_PORT',
  'WORLD_SIZE',
  'RANK',
  'LOCAL_RANK',
  'LOCAL_WORLD_SIZE',
] as const;

export type ExitKind = 'finished' | 'checkpointed' | 'badConfiguration' | 'gangBroken' | 'crash';

export function classifyExit(code: number | null): ExitKind {
  if (code === EXIT_FINISHED) return 'finished';
  if (code === EXIT_CHECKPOINTED) return 'checkpointed';
  if (code === EXIT_BAD_CONFIGURATION) return 'badConfiguration';
  if (code === EXIT_GANG_BROKEN) return 'gangBroken';
  return 'crash'; // any other code, or killed by a signal (code null)
}

/**
 * Environment of one worker: the agent's own environment minus everything TESSERA_* (agent
 * configuration must not leak into jobs), then the job's extra variables, then the protocol variables.
 */
export function buildWorkerEnv(
  job: DesiredJob,
  worker: DesiredWorker,
  resumeStep: number,
  inherited: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value !== undefined && !name.startsWith('TESSERA_')) env[name] = value;
  }
  Object.assign(env, job.env ?? {});
  env.TESSERA_JOB_ID = job.jobId;
  env.TESSERA_GENERATION = String(job.jobGeneration);
  env.TESSERA_RANK = String(worker.rank);
  env.TESSERA_WORLD_SIZE = String(job.worldSize);
  env.TESSERA_LOCAL_RANK = String(worker.localRank);
  env.TESSERA_MASTER_ADDR = job.masterAddr;
  env.TESSERA_MASTER_PORT = String(job.masterPort);
  if (job.maxP !== undefined) env.TESSERA_MAX_P = String(job.maxP);
  if (worker.ests !== undefined) env.TESSERA_ESTS = worker.ests.join(',');
  if (job.globalBatchSize !== undefined) env.TESSERA_GLOBAL_BATCH_SIZE = String(job.globalBatchSize);
  env.TESSERA_TOTAL_STEPS = String(job.totalSteps);
  env.TESSERA_CHECKPOINT_URI = job.checkpointUri;
  env.TESSERA_RESUME_STEP = String(resumeStep);
  env.CUDA_VISIBLE_DEVICES = worker.gpuIndices.join(',');
  Object.assign(env, torchDistributedEnv(job, worker));
  return env;
}

/**
 * The standard variables of torch.distributed's env:// rendezvous (as torchrun sets them), so a user's own
 * training code needs no Tessera-specific setup. The desired state lists only this host's workers of the job.
 */
export function torchDistributedEnv(job: DesiredJob, worker: DesiredWorker): Record<string, string> {
  return {
    MASTER_ADDR: job.masterAddr,
    MASTER_PORT: String(job.masterPort),
    WORLD_SIZE: String(job.worldSize),
    RANK: String(worker.rank),
    LOCAL_RANK: String(worker.localRank),
    LOCAL_WORLD_SIZE: String(job.workers.length),
  };
}

const step = z.int().nonnegative();
const reportSchema = z.discriminatedUnion('event', [
  z.object({
    event: z.literal('started'),
    step,
    rank: z.int().nonnegative(),
    ests: z.array(z.int()).optional(),
  }),
  z.object({
    event: z.literal('progress'),
    step,
    stepTime: z.number().nonnegative(),
    samplesPerSecond: z.number().nonnegative(),
    rank: z.int().nonnegative(),
  }),
  z.object({ event: z.literal('checkpoint'), step, uri: z.string() }),
  z.object({ event: z.literal('finished'), step }),
  z.object({ event: z.literal('error'), message: z.string() }),
]);
export type WorkerReport = z.infer<typeof reportSchema>;

const KNOWN_EVENTS = new Set(['started', 'progress', 'checkpoint', 'finished', 'error']);

export type ParsedLine =
  | { kind: 'report'; report: WorkerReport }
  | { kind: 'log' }
  | { kind: 'malformed'; event: string; issues: string[] };

/**
 * One stdout line of a worker. A JSON object with a known `event` is a report; a known event with
 * bad fields is malformed (logged by the agent, never acted on); anything else is a log line.
 */
export function parseReportLine(line: string): ParsedLine {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return { kind: 'log' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: 'log' };
  }
  if (typeof value !== 'object' || value === null || !('event' in value)) return { kind: 'log' };
  const event = (value as { event: unknown }).event;
  if (typeof event !== 'string' || !KNOWN_EVENTS.has(event)) return { kind: 'log' };
  const parsed = reportSchema.safeParse(value);
  if (parsed.success) return { kind: 'report', report: parsed.data };
  return {
    kind: 'malformed',
    event,
    issues: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(line)'}: ${issue.message}`),
  };
}
