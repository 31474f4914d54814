import type { AllocateStage } from '../../framework/stages.ts';
import { cellCounts } from '../crius/cell-counts.ts';
import type { CellOptions } from '../crius/job-cells.ts';

/**
 * Tells the round every count Crius's Cells may give a job (`AllocateStage.sizes`), so that a job is ended as
 * unschedulable only when none of them makes progress. Without it the elastic tier around the stage reported the
 * request alone, and a job that does not fit in memory at its request but does at twice it was ended although Crius
 * runs it there (Pollux workload-1, bert batch 384 on 6 T4s: no progress at 6, runs on 12; crius completed it).
 */
export const withCellSizes = (
  inner: AllocateStage,
  counts: Pick<CellOptions, 'countScaling' | 'oneHostCount'>,
): AllocateStage => ({
  ...inner,
  sizes: (spec, ctx) => cellCounts(spec, ctx, counts),
});
