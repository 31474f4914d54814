import { isHolding } from '../../framework/compare.ts';
import { levelOf } from '../../framework/free-gpus.ts';
import type { PlaceStage, RoundContext } from '../../framework/stages.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';

/**
 * A running job grows only onto a placement that pays.
 *
 * The allocation stage scales a running job up on its Cell estimate, which assumes the larger count consolidated;
 * the placement then keeps the job's GPUs and adds whatever is free, which may spread it over more machines or
 * racks — slower than what it had (e.g. 16 GPUs over two racks run slower than 4 on one). After the wrapped stage
 * has placed everyone, each running job placed on more GPUs than it holds keeps its current GPUs instead, unless
 * the new placement's estimated rate (its GPU type, count and topology) saves more time on its remaining
 * iterations than the restart the move costs. Packed and elastic jobs are left as placed (an elastic job's GPUs
 * are a claim the elastic tier resizes every round).
 */
export const growWhereItPays = (
  inner: PlaceStage,
  remainingOf: (job: JobState) => number = remainingIterations,
): PlaceStage => ({
  name: `${inner.name}+grow-where-it-pays`,
  place: (ordered, demands, free, ctx) => {
    const plan = inner.place(ordered, demands, free, ctx);
    for (const job of ordered) {
      const placed = plan.get(job.spec.id);
      const held = isHolding(job) ? job.allocation : undefined;
      // A kept allocation (the very object, most jobs in most rounds) did not grow.
      if (
        !placed ||
        !held ||
        placed === held ||
        job.spec.elastic ||
        placed.packedWith ||
        placed.ests ||
        held.ests
      )
        continue;
      if (allocationGpuCount(placed) <= allocationGpuCount(held)) continue;
      if (growthPays(job, held, placed, remainingOf(job), ctx)) continue;
      free.release(placed);
      if (free.tryReserve(held)) plan.set(job.spec.id, held);
      else free.reserve(placed);
    }
    return plan;
  },
  ...(inner.nextState ? { nextState: inner.nextState } : {}),
});

/** Whether moving from `held` to `placed` saves more seconds on `remaining` iterations than a restart. */
const growthPays = (
  job: JobState,
  held: Allocation,
  placed: Allocation,
  remaining: number,
  ctx: RoundContext,
): boolean => {
  const rate = (a: Allocation) =>
    ctx.perf.throughput({
      model: job.spec.model,
      batchSize: job.spec.batchSize,
      gpuType: a.gpuType,
      gpus: allocationGpuCount(a),
      shape: { level: levelOf(a, ctx.hostOf), hosts: a.slices.length },
    }).iterationsPerSecond;
  const now = rate(held);
  const next = rate(placed);
  if (!(now > 0)) return true;
  return next > now && remaining / now - remaining / next > ctx.config.restartSeconds;
};
