import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { allowedTypes, isolatedThroughput, progressTypes } from '../../framework/estimates.ts';
import type { AllocateStage, Demand, RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import { allocationGpuCount } from '../../model/plan.ts';

export interface GangOptions {
  /**
   * Head-of-line blocking: `global` = a waiting job that does not fit stops every job behind it (FCFS);
   * `per-type` = it stops the jobs bound to the same GPU type (YARN capacity scheduler, one queue per type);
   * `none` = later jobs may skip ahead (priority schedulers).
   */
  readonly blocking: 'global' | 'per-type' | 'none';
  /** `fastest` = heterogeneity-aware (most estimated throughput); `most-free` = heterogeneity-blind. */
  readonly typeChoice: 'fastest' | 'most-free';
}

/**
 * Gang allocation of exactly the requested GPU count on one GPU type, in priority order, within per-type capacity.
 * A job already holding GPUs asks for what it holds, so admission never moves it to another type by itself.
 */
export const gangAllocate = (options: GangOptions): AllocateStage => ({
  name: `gang(${options.blocking},${options.typeChoice})`,
  allocate: (ordered, ctx) => {
    const remaining = new Map<GpuTypeId, number>([...ctx.capacity].map(([t, c]) => [t, c.gpus]));
    const blockedTypes = new Set<GpuTypeId>();
    const demands = new Map<string, Demand>();
    for (const job of ordered) {
      if (isHolding(job)) {
        const type = job.allocation!.gpuType;
        const gpus = allocationGpuCount(job.allocation!);
        if ((remaining.get(type) ?? 0) >= gpus) {
          demands.set(job.spec.id, demandOf(type, gpus));
          remaining.set(type, remaining.get(type)! - gpus);
        }
        continue;
      }
      const bound = boundType(job, ctx);
      if (bound && blockedTypes.has(bound)) continue;
      const type = chooseType(job, ctx, remaining, blockedTypes, options.typeChoice);
      if (!type) {
        if (options.blocking === 'global') break;
        if (options.blocking === 'per-type' && bound) blockedTypes.add(bound);
        continue;
      }
      demands.set(job.spec.id, demandOf(type, job.spec.gpus));
      remaining.set(type, remaining.get(type)! - job.spec.gpus);
    }
    return demands;
  },
});

/** The one type a job is tied to: its only allowed type, or its preference. */
const boundType = (job: JobState, ctx: RoundContext): GpuTypeId | undefined => {
  const allowed = allowedTypes(job.spec, ctx);
  if (allowed.length === 1) return allowed[0];
  const preferred = job.spec.preferredGpuType;
  return preferred && allowed.includes(preferred) ? preferred : undefined;
};

const chooseType = (
  job: JobState,
  ctx: RoundContext,
  remaining: ReadonlyMap<GpuTypeId, number>,
  blocked: ReadonlySet<GpuTypeId>,
  choice: GangOptions['typeChoice'],
): GpuTypeId | undefined => {
  const bound = boundType(job, ctx);
  // Never a type the job makes no progress on (it would hold the GPUs forever).
  const progresses = progressTypes(job.spec, job.spec.gpus, ctx);
  const pool = bound && progresses.includes(bound) ? [bound] : allowedTypes(job.spec, ctx);
  const candidates = pool.filter(
    (t) => !blocked.has(t) && (remaining.get(t) ?? 0) >= job.spec.gpus && progresses.includes(t),
  );
  let best: GpuTypeId | undefined;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const type of candidates) {
    const score =
      choice === 'fastest'
        ? isolatedThroughput(job.spec, type, job.spec.gpus, ctx)
        : (remaining.get(type) ?? 0);
    if (score > bestScore) {
      best = type;
      bestScore = score;
    }
  }
  return best;
};
