import { placeThenPackAndMigrate } from '../../framework/compose.ts';
import type { Policy } from '../../framework/stages.ts';
import { keepThenFit } from '../baselines/keep-then-fit.ts';
import { type CriusAllocateOptions, criusAllocate } from '../crius/allocate.ts';
import { DEFAULT_CRIUS_OPTIONS } from '../crius/policies.ts';
import { DEFAULT_AUTO_TUNER } from '../dally/auto-tuner.ts';
import { costAwareDelay } from '../dally/cost-aware-delay.ts';
import { reconsolidate } from '../dally/reconsolidate.ts';
import { isElasticJob, withElasticTier } from '../easyscale/tier.ts';
import { maxWeightPacking } from '../tesserae/max-weight-packing.ts';
import { withCellSizes } from './cell-sizes.ts';
import { growWhereItPays } from './grow-where-it-pays.ts';
import { keepingPairs } from './keep-pairs.ts';
import { estimatedRemainingIterations, srtfWithMakespanGuard } from './order.ts';
import { relabelWithinRacks } from './relabel-within-racks.ts';
import { scaleUpPays } from './scale-up-pays.ts';
import { reclaimPays, takePays } from './take-pays.ts';
import { withTypeTrials } from './type-trials.ts';
import { unstartedBelowMarginPays, unstartedMargin } from './unstarted-below-margin.ts';
import { unstartedScaleUps } from './unstarted-scale-ups.ts';

/** Crius's gain margin for a running job's move (the estimate's error). */
const SCALE_UP_MARGIN = 0.1;

/** The model's error before the calibration has seen much (the margin) and its weight in observations. */
const PRIOR_WEIGHT = 4;

const BELOW_MARGIN = {
  margin: SCALE_UP_MARGIN,
  priorError: SCALE_UP_MARGIN,
  priorWeight: PRIOR_WEIGHT,
  remaining: estimatedRemainingIterations,
};

const TESSERA_CRIUS_OPTIONS: CriusAllocateOptions = {
  ...DEFAULT_CRIUS_OPTIONS,
  name: 'tessera',
  oneHostCount: true,
  reclaimFaster: { minGain: 0.1, victim: isElasticJob, pays: reclaimPays },
  minScaleUpGain: SCALE_UP_MARGIN,
  scaleUpPays: unstartedBelowMarginPays(scaleUpPays, BELOW_MARGIN),
  scaleUpBeyondDepth: unstartedScaleUps,
  takePays,
  scaleUpMargin: unstartedMargin(BELOW_MARGIN),
  restoreAhead: true,
};

/**
 * Guaranteed jobs, one job per stage (exported so that tests and benches can put other elastic tiers around it):
 * - order: shortest remaining time first with a makespan guard (the only stage that decides who goes first);
 * - allocate: Crius's Cells (GPU type × count × pipeline stages, Algorithm 1 search) in that order, reclaiming GPUs
 *   from jobs later in the order, also when elastic jobs there hold GPUs of a Cell ≥ 10 % faster than the one it
 *   could get without them (guaranteed first, elastic on spare) and its run there saves more seconds than the
 *   displaced jobs lose, each on the best Cell left for it (`take-pays.ts`, `reclaimPays`); a waiting job takes GPUs from running jobs (Crius's
 *   shrinks and moves, opportunistic suspensions) only where its wait costs it more than the take costs them, in
 *   seconds of JCT (`take-pays.ts`); when nobody waits, a job scales up (larger count,
 *   faster type) when the gain clears Crius's 10 % margin and saves more than a restart on its remaining work (jobs
 *   admitted this round scale up without counting against Crius's depth, costing no restart). No type
 *   swap: the shortest job keeps the fastest type it was admitted to and a longer one moves up when that frees
 *   (shortest remaining time on the fastest machine, Gonzalez et al.; handing the fast GPUs to the longer job of
 *   a pair delays every job that waits for them); a long job tries, once, a GPU type its model never ran on where the
 *   expected saving beats the expected cost and the worst case is ≤ 1 % of its remaining time, and goes back if it is
 *   slower there (`type-trials.ts`: the calibration learns a type only from jobs that run on it); so does a move
 *   below the scale-up margin to a Cell of a known type, at any count, that the estimate rates faster;
 * - place: consolidated, keeping unchanged allocations, with Dally's delay timers in their cost-aware form, running
 *   jobs re-consolidated onto one machine (or rack) when that saves more than a restart, and a running job grows
 *   only onto a placement whose rate (type, count, topology) saves more than a restart; then
 *   Tesserae's max-weight packing (keeping pairs that still gain) and migration-minimising relabelling, inside the
 *   place stage so that the elastic tier sees the final plan (elastic, possibly heterogeneous, allocations are never
 *   packed or relabelled).
 * What each add-on earns, switched off one at a time against the kits (misses, geometric means, CPU):
 * docs/architecture.md, "What each add-on earns".
 */
export const tesseraGuaranteedStages: Policy = {
  name: 'tessera',
  description: '',
  order: srtfWithMakespanGuard,
  allocate: withCellSizes(
    withTypeTrials(criusAllocate(TESSERA_CRIUS_OPTIONS), {
      estimator: TESSERA_CRIUS_OPTIONS.estimator,
      cells: TESSERA_CRIUS_OPTIONS,
      maxLossFraction: 0.01,
      priorError: TESSERA_CRIUS_OPTIONS.minScaleUpGain,
      priorWeight: PRIOR_WEIGHT,
      remaining: estimatedRemainingIterations,
    }),
    TESSERA_CRIUS_OPTIONS,
  ),
  place: placeThenPackAndMigrate(
    growWhereItPays(
      reconsolidate(
        costAwareDelay(keepThenFit({ strategy: 'consolidated', blocking: false }), DEFAULT_AUTO_TUNER, {
          movedWhenFree: true,
        }),
        estimatedRemainingIterations,
      ),
      estimatedRemainingIterations,
    ),
    keepingPairs(maxWeightPacking()),
    relabelWithinRacks,
  ),
};

/**
 * Tessera's own composition: the four papers in one round, plus EasyScale's elastic tier with claims — elastic jobs
 * compete in the order like any job and run elastic on the GPUs left idle when the order does not admit them.
 */
export const tessera: Policy = {
  ...tesseraGuaranteedStages,
  description:
    "Tessera: SRTF with a makespan guard; Crius Cell allocation (type × count × stages) in that order; consolidated placement with Dally's cost-aware delay timers, re-consolidation of running jobs and growth only where it pays; Tesserae's max-weight packing (keeping pairs that still gain) and migration-minimising relabelling; EasyScale's elastic tier: elastic jobs compete in the order, rigid where admitted, elastic on idle GPUs otherwise.",
  ...withElasticTier(tesseraGuaranteedStages, {
    homogeneousOnly: false,
    claims: true,
    spareGuaranteed: true,
  }),
};
