import type { UserModelRef } from '../catalog/user-models.ts';
import type { GpuTypeId } from './gpu.ts';
import type { Allocation } from './plan.ts';

/**
 * EasyScale elastic fields: the job is written for `maxP` logical workers (ESTs) and runs on 0..maxP GPUs (one worker
 * per GPU, each running at least one EST; lib/core/plugins/easyscale).
 */
export interface ElasticSpec {
  readonly maxP: number;
  /** GPUs it must hold to make progress; 0 means it may be parked with nothing (best-effort tier). */
  readonly minGpus: number;
  /** Whether its ESTs may spread over GPUs of different types (needs D2-safe kernels). */
  readonly heterogeneous: boolean;
}

/** What a user asks for. Immutable once submitted. Times are seconds on the scheduler clock. */
export interface JobSpec {
  readonly id: string;
  readonly name?: string;
  readonly tenant: string;
  /**
   * Model id from the catalog (`resnet50`, `bert-large`, `gpt3-xl`, …), or for a model outside the catalog its name and
   * a digest of its figures (`llama-3-8b@1a2b3c4d5e6f`, catalog/user-models.ts `userModelId`).
   */
  readonly model: string;
  /** A model outside the catalog: its name and declared profile (none = the conservative estimate). */
  readonly userModel?: UserModelRef;
  /** Global batch size. */
  readonly batchSize: number;
  /** Requested GPU count. */
  readonly gpus: number;
  /** GPU types the job may run on; empty/undefined = any type in the cluster. */
  readonly gpuTypes?: readonly GpuTypeId[];
  /** Type the user prefers when several fit. */
  readonly preferredGpuType?: GpuTypeId;
  /** Total training work in iterations (global steps). Importers convert trace durations to iterations. */
  readonly iterations: number;
  /** Larger is more important. Default 0. */
  readonly priority: number;
  /** Absolute completion deadline (seconds), if any. */
  readonly deadline?: number;
  /** May share GPUs with another job (Tesserae packing). */
  readonly packable: boolean;
  readonly elastic?: ElasticSpec;
  readonly submitTime: number;
  /** Free-form origin info from a trace (virtual cluster, original duration, …). */
  readonly labels?: Readonly<Record<string, string>>;
}

export const JOB_STATUSES = [
  'queued',
  'running',
  'checkpointing',
  'suspended',
  'finished',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const isTerminal = (status: JobStatus): boolean =>
  status === 'finished' || status === 'failed' || status === 'cancelled';

/** Wants GPUs this round: queued/suspended jobs wait for them, running/checkpointing jobs hold them. */
export const isActive = (status: JobStatus): boolean => !isTerminal(status);

/** What the scheduler knows about a job at the start of a round. */
export interface JobState {
  readonly spec: JobSpec;
  readonly status: JobStatus;
  /** Iterations completed. */
  readonly progress: number;
  /** GPU-seconds consumed so far (Tiresias's attained service). */
  readonly attainedService: number;
  /** Seconds spent holding GPUs. */
  readonly runningSeconds: number;
  /** When the job last entered the wait queue (arrival, preemption or failure). */
  readonly waitingSince: number;
  /** When the current allocation started, if running. */
  readonly runningSince?: number;
  readonly allocation?: Allocation;
  /** Iterations per second measured on the current allocation, when an agent or the executor reported it. */
  readonly measuredThroughput?: number;
  readonly restarts: number;
  readonly migrations: number;
  readonly finishTime?: number;
  readonly failureReason?: string;
}

export const newJobState = (spec: JobSpec): JobState => ({
  spec,
  status: 'queued',
  progress: 0,
  attainedService: 0,
  runningSeconds: 0,
  waitingSince: spec.submitTime,
  restarts: 0,
  migrations: 0,
});

export const remainingIterations = (job: JobState): number => Math.max(0, job.spec.iterations - job.progress);
