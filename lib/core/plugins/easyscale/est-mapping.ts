import type { GpuTypeId } from '../../model/gpu.ts';
import type { EstMapping } from '../../model/plan.ts';
import { countOf, type GpuCounts } from './counts.ts';

/**
 * Which virtual ranks each worker runs (`Allocation.ests`, index = worker rank, see docs/trainer-protocol.md):
 * exactly `maxP` ESTs, every worker at least one and at most its type's A_i, given out one by one to the worker that
 * would finish its next mini-batch soonest — the min–max assignment, so the step time is the plan's f_overload.
 * Ranks are contiguous in worker order (worker 0 runs 0..a₀−1, worker 1 the next a₁, …), as DDP's rank order would
 * be. Throws a RangeError when the plan cannot be realised on these workers.
 */
export const estMapping = (
  maxP: number,
  workerTypes: readonly GpuTypeId[],
  capability: ReadonlyMap<GpuTypeId, number>,
  estsPerGpu: GpuCounts,
): EstMapping => {
  const workers = workerTypes.length;
  if (workers === 0) throw new RangeError('EST mapping: no workers');
  if (workers > maxP)
    throw new RangeError(`EST mapping: ${workers} workers for ${maxP} ESTs; each needs one`);
  const rates = workerTypes.map((t) => {
    const c = capability.get(t);
    if (!(c !== undefined && c > 0)) throw new RangeError(`EST mapping: no capability for GPU type ${t}`);
    return c;
  });
  const limits = workerTypes.map((t) => countOf(estsPerGpu, t));
  const room = limits.reduce((s, a) => s + a, 0);
  if (limits.some((a) => a < 1) || room < maxP) {
    throw new RangeError(
      `EST mapping: per-GPU limits ${JSON.stringify(estsPerGpu)} cannot hold ${maxP} ESTs on ${workers} workers`,
    );
  }
  const counts = new Array<number>(workers).fill(1);
  for (let given = workers; given < maxP; given++) {
    let pick = -1;
    for (let w = 0; w < workers; w++) {
      if (counts[w]! >= limits[w]!) continue;
      if (pick < 0 || (counts[w]! + 1) / rates[w]! < (counts[pick]! + 1) / rates[pick]! - 1e-12) pick = w;
    }
    counts[pick] = counts[pick]! + 1;
  }
  let next = 0;
  return counts.map((n) => Array.from({ length: n }, () => next++));
};

/** Seconds of computation per global step of a mapping: the slowest worker's ESTs one after another. */
export const mappingStepSeconds = (
  ests: EstMapping,
  workerTypes: readonly GpuTypeId[],
  capability: (type: GpuTypeId) => number,
): number => {
  let f = 0;
  ests.forEach((ranks, w) => {
    const c = capability(workerTypes[w]!);
    f = Math.max(f, c > 0 ? ranks.length / c : Number.POSITIVE_INFINITY);
  });
  return f;
};
