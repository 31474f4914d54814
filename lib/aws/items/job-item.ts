/**
 * One item of the Jobs table: the immutable spec and launch settings, plus the control plane's view of the
 * job. Every time is in seconds (epoch-seconds.ts): instants are epoch seconds (`submittedAt`, `updatedAt`,
 * `changedAt`, … — read through `epochSeconds`, which converts values stored in milliseconds before the upgrade),
 * durations are seconds (`runningSeconds`); `attainedService` is GPU-seconds.
 */
import { z } from 'zod';
import { JOB_STATUSES, type JobState } from '../../core/model/job.ts';
import { allocationGpuCount } from '../../core/model/plan.ts';
import { allocationSchema, storedJobSpecSchema } from './allocation.ts';
import { epochSeconds } from './epoch-seconds.ts';
import { formerHoldersSchema } from './former-holders.ts';
import { timelineEventSchema } from './job-timeline.ts';

/** Where a model outside the catalog gets its figures, as of the latest round that changed them (round/model-estimates.ts). */
export const modelEstimateSchema = z.object({
  basis: z.enum(['declared', 'estimated', 'calibrated']),
  /** Throughput reports the calibration rests on. */
  samples: z.int().positive().optional(),
  /** Fitted compute-time multiplier on the declared or estimated figures (< 1 = faster than assumed). */
  computeScale: z.number().positive().optional(),
  /** Iterations per second the round predicts on the job's current placement. */
  predictedThroughput: z.number().positive().optional(),
});

export type ModelEstimate = z.infer<typeof modelEstimateSchema>;

export const jobItemSchema = z.object({
  jobId: z.string().min(1),
  tenant: z.string().min(1),
  status: z.enum(JOB_STATUSES),
  /** Epoch seconds of the submission (the status and tenant indexes' sort key) and of the latest update. */
  submittedAt: epochSeconds(),
  updatedAt: epochSeconds(),
  clientToken: z.string().optional(),
  /** sha256 of the submitted document without its client token (see `jobSpecFingerprint`). */
  fingerprint: z.string(),
  spec: storedJobSpecSchema,
  launch: z.object({
    command: z.array(z.string()).min(1),
    env: z.record(z.string(), z.string()).optional(),
    image: z.string().optional(),
    workdir: z.string().optional(),
    setup: z.array(z.string()).optional(),
  }),
  /** Iterations completed, as reported by the agents. */
  progress: z.number().nonnegative(),
  /** GPU-seconds and seconds held, accounted up to `accountedAt` (the rest is derived when read). */
  attainedService: z.number().nonnegative(),
  runningSeconds: z.number().nonnegative(),
  /** Epoch seconds. */
  accountedAt: epochSeconds().optional(),
  /** Epoch seconds since the job waits (submission or latest requeue) and since it holds its current GPUs. */
  waitingSince: epochSeconds(),
  runningSince: epochSeconds().optional(),
  allocation: allocationSchema.optional(),
  /** Consolidation of the current allocation when it was placed (keys measured profiles). */
  placementLevel: z.enum(['machine', 'rack', 'network']).optional(),
  /** Rendezvous port of rank 0, fixed for the allocation. */
  masterPort: z.int().min(1).max(65535).optional(),
  /**
   * The job's logical size: its EST count (maxP) for its whole life, fixed at its first placement to the most GPUs
   * the policy may give it (logical-size.ts), so a checkpoint resumes on any worker count the policy chooses.
   */
  logicalWorkers: z.int().positive().optional(),
  /** Bumped on every new placement or mapping: what the agents key their workers on. */
  jobGeneration: z.int().nonnegative(),
  /** Newest checkpoint step confirmed by an agent; -1 = none. */
  checkpointStep: z.int().min(-1),
  /** Step the current placement resumes from (the newest checkpoint when it was decided). */
  resumeStep: z.int().min(-1),
  /** Hosts of the previous allocation, whose late checkpoint reports still count (former-holders.ts). */
  formerHolders: formerHoldersSchema.optional(),
  measuredThroughput: z.number().nonnegative().optional(),
  /** Epoch seconds of the latest progress report. */
  lastProgressAt: epochSeconds().optional(),
  restarts: z.int().nonnegative(),
  migrations: z.int().nonnegative(),
  /** Epoch seconds. */
  finishTime: epochSeconds().optional(),
  failureReason: z.string().optional(),
  cancelRequested: z.boolean().optional(),
  /** What happened to the job, oldest first (job-timeline.ts). */
  timeline: z.array(timelineEventSchema).optional(),
  /** While waiting, as of the latest round that changed them: why, where in the queue, expected start (s). */
  waitReason: z.string().optional(),
  queuePosition: z.int().positive().optional(),
  /** Epoch seconds. */
  estimatedStart: epochSeconds().optional(),
  modelEstimate: modelEstimateSchema.optional(),
  /** Grows by one with every write (JobsRepository): orders two views of the job. */
  rev: z.int().nonnegative().optional(),
  /**
   * Wall-clock epoch seconds (with decimals) of the latest write and its change-index shard (the round reads changes
   * by these). Items last written before the upgrade hold milliseconds: the index returns them in every delta read
   * (a number above any seconds value) until their next write, and their revision makes that harmless.
   */
  changedAt: epochSeconds().optional(),
  changeShard: z.string().optional(),
});

export type JobItem = z.infer<typeof jobItemSchema>;

/** Statuses the round reads (every non-terminal one), each served by the status index. */
export const ACTIVE_JOB_STATUSES = ['queued', 'running', 'checkpointing', 'suspended'] as const;

/** The scheduling core's view of a job at `now` (seconds): service accrued since `accountedAt` included. */
/** What toJobState reads: a full item or the round's compact view of a waiting job. */
type JobStateSource = Omit<JobItem, 'launch' | 'timeline' | 'fingerprint' | 'clientToken'>;

export const toJobState = (item: JobStateSource, now: number): JobState => {
  const holding =
    item.allocation !== undefined && (item.status === 'running' || item.status === 'checkpointing');
  const elapsed = holding && item.accountedAt !== undefined ? Math.max(0, now - item.accountedAt) : 0;
  const gpus = item.allocation ? allocationGpuCount(item.allocation) : 0;
  return {
    spec: item.spec,
    status: item.status,
    progress: Math.min(item.progress, item.spec.iterations),
    attainedService: item.attainedService + gpus * elapsed,
    runningSeconds: item.runningSeconds + elapsed,
    waitingSince: item.waitingSince,
    restarts: item.restarts,
    migrations: item.migrations,
    ...(item.runningSince !== undefined ? { runningSince: item.runningSince } : {}),
    ...(holding && item.allocation ? { allocation: item.allocation } : {}),
    ...(item.measuredThroughput !== undefined ? { measuredThroughput: item.measuredThroughput } : {}),
    ...(item.finishTime !== undefined ? { finishTime: item.finishTime } : {}),
    ...(item.failureReason !== undefined ? { failureReason: item.failureReason } : {}),
  };
};
