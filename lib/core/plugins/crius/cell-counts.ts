import { allowedTypes } from '../../framework/estimates.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobSpec } from '../../model/job.ts';
import { type CellOptions, countsFor, offersOneHostCounts } from './job-cells.ts';

/**
 * Every GPU count a Crius Cell of the job may have under these count options, over the allowed types: the counts
 * `makeStaticCells` tries ({⌊N/2⌋, N, 2N} with count scaling; with `oneHostCount`, the largest power of two a host
 * holds when no host of any allowed type holds the job whole). A function of the spec and the capacity only.
 */
export const cellCounts = (
  spec: JobSpec,
  ctx: RoundContext,
  counts: Pick<CellOptions, 'countScaling' | 'oneHostCount'>,
): number[] => {
  const types = allowedTypes(spec, ctx);
  if (!offersOneHostCounts(spec, types, ctx, counts)) return countsFor(spec.gpus, counts.countScaling);
  const all = types.flatMap((t) =>
    countsFor(spec.gpus, counts.countScaling, ctx.capacity.get(t)?.largestHost),
  );
  return [...new Set(all)].sort((a, b) => a - b);
};
