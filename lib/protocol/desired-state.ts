/**
 * Desired state of one host, written by the control plane into the host's item of the DynamoDB Hosts table
 * (attribute `desired`) and read by the host agent. Nested: jobs → workers, so a job's launch settings (command,
 * environment, checkpoint URI, rendezvous) are stored once per job however many GPUs it holds on the host. The
 * agent validates it before acting: a malformed document is rejected as a whole and the agent keeps running what
 * it already has. `stop` tells the agent of a host the control plane no longer counts on (lost, outside the
 * fleet) to stop every worker and run nothing more.
 */
import { z } from 'zod';
import { imageSchema, setupSchema, workdirUriSchema } from './code-source.ts';
import { type FenceTerms, fenceTermsSchema } from './fence.ts';
import { MANAGED_ENV_NAMES } from './worker-protocol.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const managed = new Set<string>(MANAGED_ENV_NAMES);

export const desiredWorkerSchema = z.object({
  rank: z.int().nonnegative(),
  localRank: z.int().nonnegative(),
  gpuIndices: z.array(z.int().nonnegative()).min(1),
  ests: z.array(z.int().nonnegative()).min(1).optional(),
});

export const workerEnvSchema = z.record(z.string(), z.string()).superRefine((env, context) => {
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
});

export const desiredJobSchema = z.object({
  jobId: z.string().min(1).max(256),
  jobGeneration: z.int().nonnegative(),
  worldSize: z.int().positive(),
  maxP: z.int().positive().optional(),
  /** The job's global mini-batch (spec.batchSize): a trainer runs batch / maxP per EST on any worker count. */
  globalBatchSize: z.int().positive().optional(),
  totalSteps: z.int().positive(),
  checkpointUri: z
    .string()
    .regex(/^(file:\/\/\/|s3:\/\/[^/]+)/, 'must be a file:///abs/path or s3://bucket/prefix URI'),
  resumeStep: z.int().min(-1),
  masterAddr: z.string().min(1),
  masterPort: z.int().min(1).max(65535),
  command: z.array(z.string().min(1)).min(1),
  env: workerEnvSchema.optional(),
  /** Where the job's code comes from (code-source.ts); the agent's workspace runner acts on them. */
  image: imageSchema.optional(),
  workdir: workdirUriSchema.optional(),
  setup: setupSchema.optional(),
  workers: z.array(desiredWorkerSchema).min(1),
});

export const desiredStateSchema = z.object({
  hostId: z.string().min(1),
  generation: z.int().nonnegative(),
  drain: z.boolean().optional(),
  stop: z.boolean().optional(),
  /** When the agent must stop its workers by itself without contact (fence.ts); absent: it never fences. */
  fence: fenceTermsSchema.optional(),
  jobs: z.array(desiredJobSchema),
});

export type DesiredWorker = z.infer<typeof desiredWorkerSchema>;
export type DesiredJob = z.infer<typeof desiredJobSchema>;
export type DesiredStateDocument = z.infer<typeof desiredStateSchema>;

export interface DesiredState {
  hostId: string;
  generation: number;
  drain: boolean;
  /** The control plane gave this host up: stop everything, start nothing. */
  stop: boolean;
  /** The control plane's fencing terms (fence.ts), when it sent any. */
  fence?: FenceTerms;
  /** Each job's workers sorted by local rank. */
  jobs: DesiredJob[];
}

export interface ValidationContext {
  hostId: string;
  /** GPU indices present on this host; every assigned GPU must be one of them. */
  gpuIndices: readonly number[];
  /** Newest generation seen so far; an older one is stale (a delayed or replayed write) and is never run. */
  lastAcceptedGeneration: number | null;
}

export type DesiredStateResult =
  | { ok: true; state: DesiredState }
  | { ok: false; generation: number | null; issues: string[] };

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
      stop: doc.stop ?? false,
      ...(doc.fence ? { fence: doc.fence } : {}),
      jobs: doc.jobs.map((job) => ({
        ...job,
        workers: [...job.workers].sort((a, b) => a.localRank - b.localRank),
      })),
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
  const jobIndex = new Map<string, number>();
  doc.jobs.forEach((job, j) => {
    const at = `jobs[${j}]`;
    const previous = jobIndex.get(job.jobId);
    if (previous !== undefined) issues.push(`${at}.jobId: ${job.jobId} already listed as jobs[${previous}]`);
    else jobIndex.set(job.jobId, j);
    const logicalWorkers = job.maxP ?? job.worldSize;
    const seen = new Map<string, number>(); // `rank|local|gpu:${n}` → worker index, within this job
    job.workers.forEach((worker, w) => {
      const wat = `${at}.workers[${w}]`;
      const claim = (key: string, what: string) => {
        const first = seen.get(key);
        if (first !== undefined) issues.push(`${wat}: ${what} already used by ${at}.workers[${first}]`);
        else seen.set(key, w);
      };
      if (worker.rank >= job.worldSize) {
        issues.push(`${wat}.rank: ${worker.rank} must be below worldSize ${job.worldSize}`);
      }
      for (const est of worker.ests ?? []) {
        if (est >= logicalWorkers)
          issues.push(`${wat}.ests: EST ${est} must be below maxP ${logicalWorkers}`);
      }
      for (const gpu of worker.gpuIndices) {
        if (!hostGpus.has(gpu)) {
          issues.push(
            `${wat}.gpuIndices: GPU ${gpu} does not exist on this host (GPUs: ${[...hostGpus].join(', ') || 'none'})`,
          );
        }
        claim(`gpu:${gpu}`, `GPU ${gpu}`);
      }
      claim(`rank:${worker.rank}`, `rank ${worker.rank}`);
      claim(`local:${worker.localRank}`, `localRank ${worker.localRank}`);
    });
  });
  return issues;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(document)';
  return path.reduce<string>(
    (text, key) =>
      typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key),
    '',
  );
}
