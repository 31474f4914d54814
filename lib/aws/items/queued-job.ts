/**
 * What the round keeps about a waiting (queued or suspended) job between rounds: the Jobs item without what only a
 * host or the API needs (launch settings, timeline, fingerprint, client token). A few hundred bytes per job, so the
 * whole queue fits in the round's memory and in a snapshot of a few SchedulerState items.
 */
import type { z } from 'zod';
import { type JobItem, jobItemSchema } from './job-item.ts';

export const queuedJobSchema = jobItemSchema.omit({
  launch: true,
  timeline: true,
  fingerprint: true,
  clientToken: true,
});

export type QueuedJob = z.infer<typeof queuedJobSchema>;

/** The attributes of a QueuedJob: what a full read of the queue asks DynamoDB for. */
export const QUEUED_JOB_ATTRIBUTES: readonly string[] = Object.keys(queuedJobSchema.shape);

export const WAITING_STATUSES = ['queued', 'suspended'] as const;

export const isWaiting = (job: Pick<JobItem, 'status'>): boolean =>
  job.status === 'queued' || job.status === 'suspended';

export const toQueuedJob = (item: JobItem | QueuedJob): QueuedJob => {
  const { launch: _l, timeline: _t, fingerprint: _f, clientToken: _c, ...rest } = item as JobItem;
  return rest;
};

/** The queue as the round knew it: complete up to the wall-clock time `watermarkMs` (see round/queue-view.ts). */
export interface QueueSnapshot {
  readonly watermarkMs: number;
  readonly fullReadAtMs: number;
  readonly jobs: readonly QueuedJob[];
}
