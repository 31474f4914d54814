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
 * out (its demand's `maxLevel` becomes the best level) only while the wait it expects in all still fits in that
 * saving. The expected wait is learned per (level, GPU count) like Dally's auto-tuner, from the recent waits of jobs
 * that got such a placement (recorded by `nextState`) — those that had waited longer than this job has: a job past
 * every recorded wait stops holding out (it is not given "one more round" every round); with no history, one round.
 * With `movedWhenFree` (a later stage moves a spread job onto its level once that frees) the saving is at most the
 * restart such a move costs. Placement itself stays the wrapped stage's (which already takes the best level it finds
 * free).
 */
export const costAwareDelay = (
  inner: PlaceStage,
  tuner: AutoTunerOptions = DEFAULT_AUTO_TUNER,
  options: CostAwareDelayOptions = {},
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
      const level = holdOutLevel(
        remainingIterations(job),
        waited,
        demand,
        shapes,
        job.spec,
        ctx,
        tuner,
        options,
      );
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

export interface CostAwareDelayOptions {
  /**
   * A later stage moves a job started spread onto its best level once that level frees (Tessera's `reconsolidate`,
   * when the move saves more than the restart). Then holding out is weighed against starting now and moving later:
   * waiting `w` more seconds for the level loses `w × slow/fast` seconds of work at the fast rate, starting spread and
   * moving loses one restart; the job holds out only while the rest of its expected wait costs less than the restart.
   * Without it the alternative is running spread to the end, and the saving is the whole remaining run's.
   */
  readonly movedWhenFree?: boolean;
}

/** The level the job should hold out for this round, or undefined to take whatever placement is free. */
const holdOutLevel = (
  remaining: number,
  waited: number,
  demand: Demand,
  { best, spread }: { best: PlacementShape; spread: PlacementShape },
  model: { readonly model: string; readonly batchSize: number },
  ctx: RoundContext,
  tuner: AutoTunerOptions,
  options: CostAwareDelayOptions,
): TunedLevel | undefined => {
  const fast = rateOn(best, demand, model, ctx);
  const slow = rateOn(spread, demand, model, ctx);
  if (!(fast > 0) || !(slow > 0) || slow >= fast) return undefined;
  const saving = remaining / slow - remaining / fast;
  const level = best.level as TunedLevel;
  const expected = Math.max(
    expectedWait(ctx, level, demand.gpus, waited, tuner),
    waited + ctx.config.roundSeconds,
  );
  if (expected > saving) return undefined;
  // Started spread now and moved once the level frees, it works at `slow` meanwhile and pays one restart; held, it
  // does no work for the rest of the expected wait, which is worth (rest × slow / fast) seconds at the fast rate.
  if (options.movedWhenFree && ((expected - waited) * slow) / fast >= ctx.config.restartSeconds)
    return undefined;
  return level;
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

/**
 * The wait in all that a job which has already waited `waited` seconds can expect, from the recent jobs of its size
 * that got a placement at this level (the auto-tuner's lists): the mean wait of those that had waited longer than it
 * has (the jobs that got the level at once say nothing about one still waiting). When none had, the history holds no
 * job that got the level after such a wait: `Infinity`, stop holding out. With no history, one round from when the
 * job started waiting (not one more round every round).
 */
const expectedWait = (
  ctx: RoundContext,
  level: TunedLevel,
  gpus: number,
  waited: number,
  tuner: AutoTunerOptions,
): number => {
  const from = ctx.now - tuner.historySeconds;
  let seen = 0;
  let longer = 0;
  let sum = 0;
  for (const s of ctx.state.delayTuner?.lists[tunerKey(level, gpus)] ?? []) {
    if (!(s.at > from)) continue;
    seen++;
    if (s.waited > waited) {
      longer++;
      sum += s.waited;
    }
  }
  if (seen === 0)
    return waited < ctx.config.roundSeconds ? ctx.config.roundSeconds : Number.POSITIVE_INFINITY;
  return longer > 0 ? sum / longer : Number.POSITIVE_INFINITY;
};
