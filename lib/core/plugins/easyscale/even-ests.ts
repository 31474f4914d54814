import type { EstMapping } from '../../model/plan.ts';

/**
 * ESTs 0..logical−1 spread as evenly as they go over `workers` workers of one kind, contiguous in worker order
 * (worker w runs ⌊w·L/W⌋ … ⌊(w+1)·L/W⌋−1): the mapping a job without a plan-given one runs, so it keeps its
 * logical size (and its checkpoints stay valid) on any worker count up to it. Throws a RangeError when a worker
 * would get no EST.
 */
export const evenEsts = (logical: number, workers: number): EstMapping => {
  if (!(Number.isInteger(logical) && Number.isInteger(workers) && workers >= 1 && workers <= logical)) {
    throw new RangeError(`even EST mapping: ${workers} workers for ${logical} ESTs; each needs one`);
  }
  return Array.from({ length: workers }, (_, w) => {
    const from = Math.floor((w * logical) / workers);
    const to = Math.floor(((w + 1) * logical) / workers);
    return Array.from({ length: to - from }, (_, i) => from + i);
  });
};
