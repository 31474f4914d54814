import { isHolding } from '../../framework/compare.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { efficiencyFactor, efficiencyKey } from '../crius/calibration.ts';
import type { CellConfig } from '../crius/job-cells.ts';
import { orderIndex } from '../tesserae/order-index.ts';
import { estimatedRemainingIterations } from './order.ts';

/**
 * A scale-up (a larger count or a faster type, when nobody waits) that clears Crius's gain margin (10 %, the
 * estimate's error) must also save more time on the job's remaining iterations than the restart it costs — the rule
 * `grow-where-it-pays.ts` applies to placements. A job admitted this round has not started, so a larger Cell costs it
 * no restart; a job near its end does not move for a gain it cannot use.
 *
 * The margin stays: without it (any gain that pays), jobs took every slightly faster idle Cell and gave it back
 * when the next batch arrived — on the held-out batch:200@dally-16r tessera's p99 JCT went from 0.96× to 1.13× Crius's.
 *
 * On its own type, both Cells are compared under the same calibration. Crius rates the Cell a job holds with the
 * job's own measured ratio and every other Cell with its model's learned efficiency on the type; a job that runs
 * below its model's average then always sees its other counts as faster and, without a gain margin, flips between
 * two of them (an lstm-lm between 1 and 2 A100s, 19 restarts). The job's own deviation from its model carries to the
 * other counts of its type; on another type the model's efficiency there stays the estimate (part of the deviation
 * may be the type's).
 */
export const scaleUpPays = (
  ordered: readonly JobState[],
  ctx: RoundContext,
): ((jobId: string, from: CellConfig, to: CellConfig) => boolean) => {
  // Looked up on the first scale-up asked about (most rounds have waiting jobs and scale nobody up): the order's
  // index the packing stages read too, made once per round.
  let index: ReadonlyMap<string, number> | undefined;
  const calibration = ctx.state.cellCalibration;
  return (jobId, from, to) => {
    index ??= orderIndex(ordered, ctx);
    const at = index.get(jobId);
    const job = at === undefined ? undefined : ordered[at];
    if (!job || !(from.rate > 0)) return false;
    const own = calibration?.cells[jobId];
    // The job's measured ratio over its model's efficiency on the type it holds: its own deviation. (No closure
    // here: this runs per job and candidate Cell, and each function expression made per call costs its creation.)
    const deviation =
      own && own.cell === from.key && to.gpuType === from.gpuType
        ? own.ratio / efficiencyFactor(calibration, efficiencyKey(job.spec.model, from.gpuType))
        : 1;
    const toRate = to.rate * deviation;
    if (!(toRate > from.rate)) return false;
    const restart = isHolding(job) ? ctx.config.restartSeconds : 0;
    const left = estimatedRemainingIterations(job);
    return left / from.rate - left / toRate > restart;
  };
};
