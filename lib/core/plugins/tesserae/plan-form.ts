import type { Allocation } from '../../model/plan.ts';

/** Distinct hosts, each with GPUs in ascending order: the form relabelling gives every allocation. */
export const inPlanForm = (allocation: Allocation): boolean => {
  const { slices } = allocation;
  for (let i = 0; i < slices.length; i++) {
    const gpus = slices[i]!.gpus;
    if (gpus.length === 0) return false;
    for (let k = 1; k < gpus.length; k++) if (!(gpus[k - 1]! < gpus[k]!)) return false;
    for (let k = 0; k < i; k++) if (slices[k]!.hostId === slices[i]!.hostId) return false;
  }
  return true;
};

/** The same GPUs, however the slices are ordered (both in plan form: distinct hosts, ascending GPUs). */
export const samePlanFormGpus = (a: Allocation, b: Allocation): boolean => {
  if (a === b) return true;
  if (a.slices.length !== b.slices.length) return false;
  for (const slice of a.slices) {
    let other: Allocation['slices'][number] | undefined;
    // A loop, not `find` with a closure: this runs for every held job of every round.
    for (const s of b.slices)
      if (s.hostId === slice.hostId) {
        other = s;
        break;
      }
    if (!other || other.gpus.length !== slice.gpus.length) return false;
    for (let k = 0; k < slice.gpus.length; k++) if (other.gpus[k] !== slice.gpus[k]) return false;
  }
  return true;
};
