/**
 * Desired state of one host, written by the control plane into the host's item of the DynamoDB
 * Hosts table (attribute `desired`). The agent validates it before acting: a malformed document is
 * rejected as a whole and the agent keeps running what it already has.
 */
import { z } from 'zod';
import { MANAGED_ENV_NAMES } from './worker-protocol.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const managed = new Set<string>(MANAGED_ENV_NAMES);

export const desiredWorkerSchema = z.object({
  jobId: z.string().min(1).max(256),
  jobGeneration: z.int().nonnegative(),
  rank: z.int().nonnegative(),
  worldSize: z.int().positive(),
  localRank: z.int().nonnegative(),
  gpuIndices: z.array(z.int().nonnegative()).min(1),
  ests: z.array(z.int().nonnegative()).min(1).optional(),
  maxP: z.int().positive().optional(),
  totalSteps: z.int().positive(),
  checkpointUri: z
    .string()
    .regex(/^(file:\/\/\/|s3:\/\/[^/]+)/, 'must be a file:///abs/path or s3://bucket/prefix URI'),
  resumeStep: z.int().min(-1),
  masterAddr: z.string().min(1),
  masterPort: z.int().min(1).max(65535),
  command: z.array(z.string().min(1)).min(1),
  env: z
    .record(z.string(), z.string())
    .superRefine((env, context) => {
      for (const name of Object.keys(env)) {
        if (!ENV_NAME.test(name)) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: 'must be a valid environment variable name',
          });
        } else if (managed.has(name)) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: `may not be set: the agent manages ${MANAGED_ENV_NAMES.join(', ')}`,
          });
        }
      }
    })
    .optional(),
});

export const desiredStateSchema = z.object({
  hostId: z.string().min(1),
  generation: z.int().nonnegative(),
  drain: z.boolean().optional(),
  workers: z.array(desiredWorkerSchema),
});

export type DesiredWorker = z.infer<typeof desiredWorkerSchema>;
export type DesiredStateDocument = z.infer<typeof desiredStateSchema>;

/** The workers of one job on this host, with the settings they must agree on. */
export interface DesiredJob {
  jobId: string;
  jobGeneration: number;
  worldSize: number;
  maxP?: number;
  totalSteps: number;
  checkpointUri: string;
  resumeStep: number;
  masterAddr: string;
  masterPort: number;
  /** Sorted by local rank. */
  workers: DesiredWorker[];
}

export interface DesiredState {
  hostId: string;
  generation: number;
  drain: boolean;
  jobs: DesiredJob[];
}

export interface ValidationContext {
  hostId: string;
  /** GPU indices present on this host; every assigned GPU must be one of them. */
  gpuIndices: readonly number[];
  /** Generation last accepted; an older one is stale (a delayed or replayed write). */
  lastAcceptedGeneration: number | null;
}

export type DesiredStateResult =
  | { ok: true; state: DesiredState }
  | { ok: false; generation: number | null; issues: string[] };

/** Fields every worker of one job must agree on. */
const JOB_FIELDS = [
  'jobGeneration',
  'worldSize',
  'maxP',
  'totalSteps',
  'checkpointUri',
  'resumeStep',
  'masterAddr',
  'masterPort',
] as const;

export function validateDesiredState(raw: unknown, context: ValidationContext): DesiredStateResult {
  const parsed = desiredStateSchema.safeParse(raw);
  if (!parsed.success) {
    const generation =
      typeof raw === 'object' &&
      raw !== null &&
      Number.isInteger((raw as { generation?: unknown }).generation)
        ? ((raw as { generation: number }).generation ?? null)
        : null;
    return {
      ok: false,
      generation,
      issues: parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`),
    };
  }
  const doc = parsed.data;
  const issues = semanticIssues(doc, context);
  if (issues.length > 0) return { ok: false, generation: doc.generation, issues };
  return {
    ok: true,
    state: {
      hostId: doc.hostId,
      generation: doc.generation,
      drain: doc.drain ?? false,
      jobs: groupJobs(doc),
    },
  };
}

function semanticIssues(doc: DesiredStateDocument, context: ValidationContext): string[] {
  const issues: string[] = [];
  if (doc.hostId !== context.hostId) {
    issues.push(`hostId: is "${doc.hostId}" but this agent is host "${context.hostId}"`);
  }
  if (context.lastAcceptedGeneration !== null && doc.generation < context.lastAcceptedGeneration) {
    issues.push(
      `generation: ${doc.generation} is older than the generation already applied (${context.lastAcceptedGeneration})`,
    );
  }
  const hostGpus = new Set(context.gpuIndices);
  const firstOfJob = new Map<string, number>();
  const seen = new Map<string, number>(); // `${jobId}\0rank|localRank|gpu:${n}` → worker index
  doc.workers.forEach((worker, index) => {
    const at = `workers[${index}]`;
    const claim = (key: string, what: string) => {
      const previous = seen.get(`${worker.jobId}\0${key}`);
      if (previous !== undefined)
        issues.push(`${at}: ${what} already used by workers[${previous}] of job ${worker.jobId}`);
      else seen.set(`${worker.jobId}\0${key}`, index);
    };
    if (worker.rank >= worker.worldSize) {
      issues.push(`${at}.rank: ${worker.rank} must be below worldSize ${worker.worldSize}`);
    }
    const logicalWorkers = worker.maxP ?? worker.worldSize;
    for (const est of worker.ests ?? []) {
      if (est >= logicalWorkers) issues.push(`${at}.ests: EST ${est} must be below maxP ${logicalWorkers}`);
    }
    for (const gpu of worker.gpuIndices) {
      if (!hostGpus.has(gpu)) {
        issues.push(
          `${at}.gpuIndices: GPU ${gpu} does not exist on this host (GPUs: ${[...hostGpus].join(', ') || 'none'})`,
        );
      }
      claim(`gpu:${gpu}`, `GPU ${gpu}`);
    }
    claim(`rank:${worker.rank}`, `rank ${worker.rank}`);
    claim(`local:${worker.localRank}`, `localRank ${worker.localRank}`);
    const first = firstOfJob.get(worker.jobId);
    if (first === undefined) {
      firstOfJob.set(worker.jobId, index);
      return;
    }
    const reference = doc.workers[first]!;
    for (const field of JOB_FIELDS) {
      if (worker[field] !== reference[field]) {
        issues.push(
          `${at}.${field}: ${JSON.stringify(worker[field])} differs from workers[${first}] of the same job (${JSON.stringify(reference[field])})`,
        );
      }
    }
  });
  return issues;
}

function groupJobs(doc: DesiredStateDocument): DesiredJob[] {
  const jobs = new Map<string, DesiredJob>();
  for (const worker of doc.workers) {
    const job = jobs.get(worker.jobId);
    if (job) {
      job.workers.push(worker);
      continue;
    }
    jobs.set(worker.jobId, {
      jobId: worker.jobId,
      jobGeneration: worker.jobGeneration,
      worldSize: worker.worldSize,
      ...(worker.maxP !== undefined ? { maxP: worker.maxP } : {}),
      totalSteps: worker.totalSteps,
      checkpointUri: worker.checkpointUri,
      resumeStep: worker.resumeStep,
      masterAddr: worker.masterAddr,
      masterPort: worker.masterPort,
      workers: [worker],
    });
  }
  for (const job of jobs.values()) job.workers.sort((a, b) => a.localRank - b.localRank);
  return [...jobs.values()];
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(document)';
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
    '',
  );
}
