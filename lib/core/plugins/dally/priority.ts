import { allowedTypes, bestShape } from '../../framework/estimates.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import { allocationGpuCount } from '../../model/plan.ts';

/**
 * Dally's network-sensitive priority (§3): with W = i/I the share of work done and R = t_run/(t_compute·I) the running
 * time normalised by the ideal (communication-free) running time, `ratio` is P = W/R = ideal/observed speed and
 * `difference` is W − R. Either way, lower = slowed more by the network = offered first.
 */
export type PriorityFormula = 'ratio' | 'difference';

export const PRIORITY_FORMULAS: readonly PriorityFormula[] = ['ratio', 'difference'];

/** W and R of a job given its ideal seconds per iteration (compute only, no communication). */
export const workAndRunTime = (
  job: Pick<JobState, 'progress' | 'runningSeconds' | 'spec'>,
  idealIterationSeconds: number,
): { readonly w: number; readonly r: number } => {
  const total = job.spec.iterations;
  if (!(total > 0 && idealIterationSeconds > 0)) return { w: 0, r: 0 };
  return { w: job.progress / total, r: job.runningSeconds / (idealIterationSeconds * total) };
};

/**
 * P of a job. A job that never ran (R = 0) is neutral: 1 for `ratio`, 0 for `difference` (specs/dally.md §3 decision),
 * so that fresh jobs queue by arrival behind jobs that were slowed down. P is capped at that neutral value: a job
 * running faster than its ideal only shows that the compute estimate was pessimistic, and estimation error must not
 * rank it as "less slowed" than a job running exactly as estimated (it would become everybody's preemption victim).
 */
export const networkPriority = (
  job: Pick<JobState, 'progress' | 'runningSeconds' | 'spec'>,
  idealIterationSeconds: number,
  formula: PriorityFormula,
): number => {
  const { w, r } = workAndRunTime(job, idealIterationSeconds);
  if (formula === 'difference') return Math.min(0, w - r);
  return r > 0 ? Math.min(1, w / r) : 1;
};

/** The GPU type P is measured against: the one the job holds, else the allowed type with the most GPUs. */
const referenceType = (job: JobState, ctx: RoundContext): GpuTypeId | undefined => {
  if (job.allocation) return job.allocation.gpuType;
  let best: GpuTypeId | undefined;
  for (const type of allowedTypes(job.spec, ctx)) {
    if (!best || (ctx.capacity.get(type)?.gpus ?? 0) > (ctx.capacity.get(best)?.gpus ?? 0)) best = type;
  }
  return best;
};

/**
 * t_compute: the scheduler's estimate of one iteration's compute time on the job's GPUs, without communication
 * (the paper measures one forward+backward pass on one GPU). 0 when the model cannot run there.
 */
export const idealIterationSeconds = (job: JobState, ctx: RoundContext): number => {
  const type = referenceType(job, ctx);
  if (!type) return 0;
  const gpus = job.allocation ? allocationGpuCount(job.allocation) : job.spec.gpus;
  const estimate = ctx.perf.throughput({
    model: job.spec.model,
    batchSize: job.spec.batchSize,
    gpuType: type,
    gpus,
    shape: bestShape(gpus, ctx.capacity.get(type)),
  });
  return estimate.iterationsPerSecond > 0 ? estimate.computeSeconds : 0;
};

/** P of every job, computed once per round. */
export const priorities = (
  jobs: readonly JobState[],
  ctx: RoundContext,
  formula: PriorityFormula,
): Map<string, number> =>
  new Map(jobs.map((job) => [job.spec.id, networkPriority(job, idealIterationSeconds(job, ctx), formula)]));
