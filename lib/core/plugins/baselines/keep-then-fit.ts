import { isHolding } from '../../framework/compare.ts';
import type { FreeGpus } from '../../framework/free-gpus.ts';
import type { Demand, PlaceStage, RoundContext } from '../../framework/stages.ts';
import { allocationOf } from '../../model/allocation-of.ts';
import type { HostSlice } from '../../model/cluster.ts';
import type { JobState } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import type { Level } from '../../model/topology.ts';

export type FitStrategy = 'consolidated' | 'first-fit';

export interface KeepThenFitOptions {
  /** `consolidated`: best consolidation level first (machine, rack, network); `first-fit`: network-agnostic. */
  readonly strategy: FitStrategy;
  /** Per-job override of the strategy (Tiresias consolidates only high-skew models). */
  readonly strategyFor?: (job: JobState, ctx: RoundContext) => FitStrategy;
  /** Worst level a job accepts (default: the demand's `maxLevel`, else network). */
  readonly maxLevel?: (job: JobState, demand: Demand, ctx: RoundContext) => Level;
  /** FCFS: a new job that cannot be placed stops every new job behind it. */
  readonly blocking: boolean;
}

/**
 * Placement in three passes:
 * 1. admitted jobs that already hold GPUs matching their demand keep them (no needless moves);
 * 2. other admitted jobs, in priority order, get GPUs by the fit strategy;
 * 3. work conservation: a job the allocator did not admit keeps running where it is if its GPUs are still free.
 */
export const keepThenFit = (options: KeepThenFitOptions): PlaceStage =>
  keepThenFitWith(everyFitOption(options));

/**
 * The options with every field present, in one order (absent ones undefined): the policies that use this stage pass
 * objects of different fields (a `strategyFor`, a `maxLevel` or neither), and the stage code compiled for one was
 * thrown away ('wrong map') when the next one ran. Reading a field gives what the given options give.
 */
const everyFitOption = (o: KeepThenFitOptions): KeepThenFitOptions => ({
  strategy: o.strategy,
  strategyFor: o.strategyFor,
  maxLevel: o.maxLevel,
  blocking: o.blocking,
});

const keepThenFitWith = (options: KeepThenFitOptions): PlaceStage => ({
  name: `keep-then-${options.strategy}`,
  place: (ordered, demands, free, ctx) => {
    const plan = new Map<string, Allocation>();
    for (const job of ordered) {
      const demand = demands.get(job.spec.id);
      if (demand && isHolding(job) && matches(job.allocation!, demand) && free.tryReserve(job.allocation!))
        plan.set(job.spec.id, job.allocation!);
    }
    for (const job of ordered) {
      const demand = demands.get(job.spec.id);
      if (!demand || plan.has(job.spec.id)) continue;
      const maxLevel = options.maxLevel?.(job, demand, ctx) ?? demand.maxLevel ?? 'network';
      const slices = fit(free, demand, maxLevel, options.strategyFor?.(job, ctx) ?? options.strategy);
      if (!slices) {
        if (options.blocking && !isHolding(job)) break;
        continue;
      }
      const allocation = allocationOf(demand.gpuType, slices, demand.cell || undefined);
      free.reserve(allocation);
      plan.set(job.spec.id, allocation);
    }
    for (const job of ordered) {
      if (plan.has(job.spec.id) || !isHolding(job) || !free.tryReserve(job.allocation!)) continue;
      plan.set(job.spec.id, job.allocation!);
    }
    return plan;
  },
});

const matches = (allocation: Allocation, demand: Demand): boolean =>
  allocation.gpuType === demand.gpuType && allocationGpuCount(allocation) === demand.gpus;

const fit = (
  free: FreeGpus,
  demand: Demand,
  maxLevel: Level,
  strategy: FitStrategy,
): HostSlice[] | undefined =>
  strategy === 'first-fit'
    ? free.firstFit(demand.gpuType, demand.gpus)
    : free.find(demand.gpuType, demand.gpus, maxLevel)?.slices;
