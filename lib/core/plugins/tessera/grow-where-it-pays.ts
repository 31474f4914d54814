import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { type FreeGpus, levelOf } from '../../framework/free-gpus.ts';
import type { Demand, PlaceStage, RoundContext } from '../../framework/stages.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import { levelRank } from '../../model/topology.ts';
import { bestLevel } from './best-level.ts';

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
 *
 * When a job placed before it took the GPUs it holds (both grew, the earlier one onto the other's machine) and the
 * growth was spread beyond the consolidation its Cell assumed, everyone is placed again with that job asking for
 * exactly what it holds, so it keeps it: on guaranteed + elastic, seed 3, noise 2, a swin-t grown from 4 to 8 V100s
 * lost its machine to another growth and ran 8 GPUs over two hosts (0.6× its rate on 4 of one) for 18,000 s,
 * avg JCT 1.12× Crius's; 0.99× with the second placement. A move to another type placed as consolidated as the
 * cluster allows stays: the raw estimate here would overrule the allocation's calibrated choice of type.
 */
export const growWhereItPays = (
  inner: PlaceStage,
  remainingOf: (job: JobState) => number = remainingIterations,
): PlaceStage => ({
  name: `${inner.name}+grow-where-it-pays`,
  place: (ordered, demands, free, ctx) => {
    const first = inner.place(ordered, demands, free, ctx);
    const robbed = undoGrowths(ordered, first, free, ctx, remainingOf);
    if (robbed.length === 0) return first;
    // Their GPUs went to jobs placed before them: place everyone again with those jobs asking for what they hold.
    for (const a of first.values()) free.release(a);
    const again = new Map(demands);
    for (const job of robbed) again.set(job.spec.id, heldDemand(job.allocation!));
    const plan = inner.place(ordered, again, free, ctx);
    undoGrowths(ordered, plan, free, ctx, remainingOf);
    return plan;
  },
  ...(inner.nextState ? { nextState: inner.nextState } : {}),
});

/**
 * Puts each running job whose growth does not pay back on the GPUs it holds, in `plan` and `free`; returns the jobs
 * whose held GPUs another job took and whose growth was spread beyond its Cell's consolidation (they keep their new
 * placement here).
 */
const undoGrowths = (
  ordered: readonly JobState[],
  plan: Map<string, Allocation>,
  free: FreeGpus,
  ctx: RoundContext,
  remainingOf: (job: JobState) => number,
): JobState[] => {
  const robbed: JobState[] = [];
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
    else {
      free.reserve(placed);
      // Only where the placement could not consolidate the growth as the Cell assumed (otherwise the raw estimate
      // here would overrule Crius's calibrated choice of type: a transformer moved from 1 A100 to 2 V100s, slower
      // by it, ran 25 % faster there).
      if (spreadBeyondCell(placed, ctx)) robbed.push(job);
    }
  }
  return robbed;
};

/** The placement is less consolidated than the best the cluster offers its type and count. */
const spreadBeyondCell = (placed: Allocation, ctx: RoundContext): boolean =>
  levelRank(levelOf(placed, ctx.hostOf)) >
  levelRank(bestLevel(ctx.cluster, placed.gpuType, allocationGpuCount(placed)));

/** A demand for exactly what a job holds (its type, count and Cell): the placement keeps it where it is. */
const heldDemand = (held: Allocation): Demand =>
  demandOf(held.gpuType, allocationGpuCount(held), held.cell || undefined);

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
