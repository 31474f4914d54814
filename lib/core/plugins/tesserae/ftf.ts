import { sortByKey } from '../../framework/compare.ts';
import { bestIsolatedThroughput } from '../../framework/estimates.ts';
import type { OrderStage, RoundContext } from '../../framework/stages.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';

/**
 * Finish-time fairness ρ (Themis, NSDI '20) as the scheduler can estimate it mid-flight: the time the job will
 * have taken in the shared cluster — elapsed since arrival plus its remaining work at its isolated rate — over
 * the time it would take in an isolated 1/N share of the cluster, N = active jobs: its isolated run time,
 * stretched when its GPU demand exceeds the fair share G/N. ρ > 1 means the job is behind its fair share.
 * Infinity for a job no allowed GPU type can run.
 */
export const estimatedFinishTimeFairness = (
  job: JobState,
  ctx: RoundContext,
  activeJobs: number,
  clusterGpus: number,
): number => {
  const rate = bestIsolatedThroughput(job.spec, job.spec.gpus, ctx);
  if (!(rate > 0)) return Number.POSITIVE_INFINITY;
  const isolated = job.spec.iterations / rate;
  const share = clusterGpus / Math.max(1, activeJobs);
  const ideal = isolated * Math.max(1, job.spec.gpus / Math.max(share, Number.MIN_VALUE));
  const shared = Math.max(0, ctx.now - job.spec.submitTime) + remainingIterations(job) / rate;
  return shared / Math.max(ideal, Number.MIN_VALUE);
};

/**
 * Finish-time-fairness order (Tesserae-FTF): the job furthest behind its fair share (largest estimated ρ) first.
 * Preemptive like Themis's rounds: a running job that has caught up falls behind jobs that have not.
 */
export const ftfOrder: OrderStage = {
  name: 'ftf',
  order: (jobs, ctx) => {
    let gpus = 0;
    for (const c of ctx.capacity.values()) gpus += c.gpus;
    return sortByKey(jobs, (job) => -estimatedFinishTimeFairness(job, ctx, jobs.length, gpus));
  },
};
