import { sortByKey } from '../../framework/compare.ts';
import type { OrderStage } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';

export interface LasOptions {
  /** Attained-service thresholds in GPU-seconds between queues; queue k holds jobs below thresholds[k]. */
  readonly thresholds: readonly number[];
  /**
   * Starvation guard: a job that has waited at least `starveFactor` × its running time (and at least one
   * minute) is promoted to the highest queue. 0 disables promotion.
   */
  readonly starveFactor: number;
}

/** Tiresias defaults (discretised 2D-LAS): two demotions, at 1 and 10 GPU-hours, promotion after waiting 2× its run. */
export const DEFAULT_LAS: LasOptions = { thresholds: [3_600, 36_000], starveFactor: 2 };

export const lasQueue = (job: JobState, now: number, options: LasOptions = DEFAULT_LAS): number => {
  const waited = now - job.waitingSince;
  const waiting = job.status === 'queued' || job.status === 'suspended';
  if (waiting && options.starveFactor > 0 && job.runningSeconds > 0) {
    if (waited >= Math.max(60, options.starveFactor * job.runningSeconds)) return 0;
  }
  const q = options.thresholds.findIndex((t) => job.attainedService < t);
  return q === -1 ? options.thresholds.length : q;
};

/**
 * Tiresias 2D-LAS: jobs sorted by discretised attained service (GPU-seconds = GPUs × time run), FIFO inside a queue.
 * Preemptive: a running job that has been demoted falls behind waiting jobs of higher queues.
 */
export const lasOrder = (options: LasOptions = DEFAULT_LAS): OrderStage => ({
  name: 'las',
  order: (jobs, ctx) => sortByKey(jobs, (job) => lasQueue(job, ctx.now, options)),
});
