import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import type { CellEstimator } from '../crius/estimator.ts';
import { type CellConfig, type CellOptions, jobCells, staticCells } from '../crius/job-cells.ts';
import { makeConfig } from '../crius/shared-cells.ts';

/**
 * A running job's Cells at `gpus` GPUs on `types` (types it does not hold), calibrated as its own list (`jobCells`)
 * calibrates them, in the order of its raw Cells (not by value). Type trials look at a few Cells of a few jobs each
 * round: made from the job's raw Cells, they leave its own list and its shape's shared one unmade. With type scaling
 * and without deadlines the own list is every raw Cell calibrated with the job's own ratio where it was observed
 * (`makeConfig` with the job's id), but for the held Cell; otherwise the list itself is filtered.
 */
export const trialCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  options: CellOptions,
  gpus: number,
  types: readonly GpuTypeId[],
): CellConfig[] => {
  const out: CellConfig[] = [];
  if (!options.typeScaling || options.deadlines) {
    for (const c of jobCells(job, ctx, estimator, options).configs)
      if (c.gpus === gpus && types.includes(c.gpuType)) out.push(c);
    return out;
  }
  const statics = staticCells(job, ctx, estimator, options);
  const calibration = ctx.state.cellCalibration;
  for (const r of statics.raws) {
    if (r.gpus !== gpus || !types.includes(r.type)) continue;
    out.push(
      makeConfig(calibration, job.spec.id, r.type, r.gpus, r.raw, statics.reference, r.key, r.efficiencyKey),
    );
  }
  return out;
};
