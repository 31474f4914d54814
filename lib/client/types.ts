/** What the API returns: the handler's own view types, plus the wait fields the round adds when it knows them. */
import type { hostView, jobView, logPageView } from '../../functions/api/views.ts';
import type { JobStatus } from '../core/model/job.ts';

export type { ConfigView } from '../../functions/api/config-view.ts';

/** One entry of a job's timeline (the API shows times as ISO strings). */
export interface TimelineEvent {
  /** ISO time. */
  readonly at: string;
  readonly kind: string;
  readonly detail?: string;
  readonly hosts?: readonly string[];
}

export type JobView = ReturnType<typeof jobView> & {
  /** Why a waiting job waits, in words ("8 × A100 needed, 3 free; 2 jobs ahead"). */
  readonly waitReason?: string;
  /** 1 = next to start. */
  readonly queuePosition?: number;
  /** ISO time the scheduler expects the job to start. */
  readonly estimatedStart?: string;
  readonly timeline?: readonly TimelineEvent[];
  readonly spec?: Record<string, unknown>;
};

export type HostView = ReturnType<typeof hostView> & { readonly pricePerHour?: number };

export interface ClusterView {
  readonly round: number;
  readonly lastRoundAt?: string;
  readonly hosts: readonly HostView[];
  readonly gpus: number;
  readonly busyGpus: number;
  /** The caller's own active jobs per status, as of `jobsAsOf` (the round that counted them). */
  readonly jobs: Partial<Record<JobStatus, number>>;
  /** GPUs the caller's jobs hold, as of `jobsAsOf`. */
  readonly gpusInUse?: number;
  readonly jobsAsOf?: string;
}

export interface SubmitResult {
  readonly job: JobView;
  /** False when the same client token and document were submitted before (the existing job is returned). */
  readonly created: boolean;
}

export interface JobPage {
  readonly jobs: readonly JobView[];
  readonly nextToken?: string;
}

/** A page of a job's worker output (`GET /jobs/{id}/logs`). */
export type LogPageView = ReturnType<typeof logPageView>;
export type LogLineView = LogPageView['lines'][number];

export interface LogsOptions {
  /** Only this rank's output. */
  readonly rank?: number;
  /** Where the previous page ended (its `nextCursor`). */
  readonly cursor?: string;
  /** Lines per page (1–5000; default 1000). */
  readonly limit?: number;
}

export interface ListJobsOptions {
  readonly status?: JobStatus;
  readonly limit?: number;
  readonly nextToken?: string;
}
