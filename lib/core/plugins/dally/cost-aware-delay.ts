import { isHolding } from '../../framework/compare.ts';
import { contextWithState } from '../../framework/context-with-state.ts';
import { withMaxLevel } from '../../framework/demand-of.ts';
import type { Demand, PlaceStage, RoundContext } from '../../framework/stages.ts';
import { remainingIterations } from '../../model/job.ts';
import type { PlacementShape } from '../../model/perf.ts';
import { type AutoTunerOptions, DEFAULT_AUTO_TUNER, type TunedLevel, tunerKey } from './auto-tuner.ts';
import { recordAcceptedWaits } from './record-waits.ts';
import { type LevelCapacity, roundLevelCapacities } from './topology.ts';

/**
 * Dally's delay scheduling in a form that never makes a job wait longer than the communication time it saves.
 *
 * A waiting multi-GPU job may hold out for its best level (one machine when it fits on one, else one rack). Holding
 * out saves `remaining × (1/rate(spread) − 1/rate(best))` seconds of communication; it costs the wait. The job holds
 * out (its demand's `maxLevel` becomes the best level) only while what it has waited plus what it expects to wait
 * still fits in that saving. The expected wait is learned per (level, GPU count) like Dally's auto-tuner: the mean
 * of recent waits of jobs that got such a placement (recorded by `nextState`); with no history, one round.
 * Placement itself stays the wrapped stage's (which already takes the best level it finds free).
 */
export const costAwareDelay = (
  inner: PlaceStage,
  tuner: AutoTunerOptions = DEFAULT_AUTO_TUNER,
): PlaceStage => ({
  name: `${inner.name}+cost-aware-delay`,
  place: (ordered, demands, free, ctx) => {
    // Copied on the first hold only: in most rounds no job holds out, and the inner stage reads the demands as given.
    let held: Map<string, Demand> | undefined;
    const levels = roundLevelCapacities(ctx);
    for (const job of ordered) {
      const demand = demands.get(job.spec.id);
      if (!demand || isHolding(job) || demand.elastic || demand.gpus < 2) continue;
      const shapes = bestAndSpread(demand, levels.get(demand.gpuType), ctx);
      if (!shapes) continue;
      const waited = ctx.now - job.waitingSince;
      const level = holdOutLevel(remainingIterations(job), waited, demand, shapes, job.spec, ctx, tuner);
      if (level) {
        held ??= new Map(demands);
        held.set(job.spec.id, withMaxLevel(demand, level));
      }
    }
    return inner.place(ordered, held ?? demands, free, ctx);
  },
  nextState: (ordered, plan, ctx) => {
    const state = inner.nextState ? inner.nextState(ordered, plan, ctx) : ctx.state;
    return recordAcceptedWaits(ordered, plan, contextWithState(ctx, state), tuner);
  },
});

/** The level the job should hold out for this round, or undefined to take whatever placement is free. */
const holdOutLevel = (
  remaining: number,
  waited: number,
  demand: Demand,
  { best, spread }: { best: PlacementShape; spread: PlacementShape },
  model: { readonly model: string; readonly batchSize: number },
  ctx: RoundContext,
  tuner: AutoTunerOptions,
): TunedLevel | undefined => {
  const fast = rateOn(best, demand, model, ctx);
  const slow = rateOn(spread, demand, model, ctx);
  if (!(fast > 0) || !(slow > 0) || slow >= fast) return undefined;
  const saving = remaining / slow - remaining / fast;
  const level = best.level as TunedLevel;
  const expected = expectedWait(ctx, level, demand.gpus, tuner) ?? ctx.config.roundSeconds;
  return Math.max(expected, waited + ctx.config.roundSeconds) <= saving ? level : undefined;
};

/**
 * The demand's estimated rate on a shape. The query's fields only (`model` is the job's spec, and a spread of it is a
 * copy per call); a module function, not a closure made per waiting job and round.
 */
const rateOn = (
  shape: PlacementShape,
  demand: Demand,
  model: { readonly model: string; readonly batchSize: number },
  ctx: RoundContext,
): number =>
  ctx.perf.throughput({
    model: model.model,
    batchSize: model.batchSize,
    gpuType: demand.gpuType,
    gpus: demand.gpus,
    shape,
  }).iterationsPerSecond;

/**
 * The best shape the job's demand can have (one machine, else one rack) and the spread one it takes when it stops
 * holding out (twice the hosts, across the network — or within the rack when the type's hosts share one rack).
 * Undefined when there is nothing better to hold out for.
 */
const bestAndSpread = (
  demand: Demand,
  levels: LevelCapacity | undefined,
  ctx: RoundContext,
): { best: PlacementShape; spread: PlacementShape } | undefined => {
  if (!levels) return undefined;
  const oneRack = (ctx.capacity.get(demand.gpuType)?.gpus ?? 0) <= levels.rack;
  const hosts = Math.ceil(demand.gpus / Math.max(1, levels.machine));
  const spreadLevel = oneRack ? 'rack' : 'network';
  if (demand.gpus <= levels.machine)
    return {
      best: { level: 'machine', hosts: 1 },
      spread: { level: spreadLevel, hosts: Math.min(demand.gpus, 2) },
    };
  if (demand.gpus <= levels.rack && !oneRack)
    return {
      best: { level: 'rack', hosts },
      spread: { level: 'network', hosts: Math.min(demand.gpus, 2 * hosts) },
    };
  return undefined;
};

/** Mean wait of recent jobs of this size that got a placement at this level (the auto-tuner's lists). */
const expectedWait = (
  ctx: RoundContext,
  level: TunedLevel,
  gpus: number,
  tuner: AutoTunerOptions,
): number | undefined => {
  const samples = (ctx.state.delayTuner?.lists[tunerKey(level, gpus)] ?? []).filter(
    (s) => s.at > ctx.now - tuner.historySeconds,
  );
  if (samples.length === 0) return undefined;
  return samples.reduce((s, x) => s + x.waited, 0) / samples.length;
};
