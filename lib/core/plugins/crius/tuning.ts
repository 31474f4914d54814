import type { StageParallelism } from '../../model/plan.ts';
import { type StageSplit, splitsOf } from './cost.ts';

/**
 * Cell-guided parallelism tuning (Crius §5.2, Fig. 11). A stage of N GPUs has splits ordered from DP-only
 * (N × 1) through half-hybrid (√N × √N) to TP-only (1 × N). The estimator's choice for the stage is its
 * "favour"; the tuner searches only that half. [decision] For non-square N the DP half is dp ≥ tp and the
 * TP half tp ≥ dp, so the middle splits belong to the half they lean to.
 */
export const prunedSplits = (gpus: number, favour: StageParallelism): StageSplit[] =>
  splitsOf(gpus).filter((s) => (favour === 'dp' ? s.dp >= s.tp : s.tp >= s.dp));

/** The tuning hints carried in a Cell: the pruned candidates of every stage. */
export const tuningHints = (
  stageGpus: readonly number[],
  favours: readonly StageParallelism[],
): StageSplit[][] => stageGpus.map((g, s) => prunedSplits(g, favours[s] ?? 'dp'));
