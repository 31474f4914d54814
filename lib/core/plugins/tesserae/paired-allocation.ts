import type { HostSlice } from '../../model/cluster.ts';
import type { Allocation } from '../../model/plan.ts';

/**
 * `previous` itself when it is exactly the packed allocation `pairedWith(base, partner, strategy)` would build: the
 * same value in every field (`allocationOf` gives every allocation all fields in one order), and the same GPUs in the
 * same order. Undefined otherwise, and the caller builds it.
 *
 * A pair that stays together is rebuilt every round (the placement drops a partner that waits, the packing stage
 * adds it back); handing on the allocation the job already holds saves the copies, and keeps what is memoised per
 * allocation object (Crius's held Cell, the simulator's rate of a running job) valid from round to round.
 */
export const unchangedPairing = (
  previous: Allocation | undefined,
  base: Allocation,
  partner: string,
  strategy: string | undefined,
): Allocation | undefined => {
  if (!previous || previous.packedWith !== partner || previous.packingStrategy !== strategy) return undefined;
  if (base.packedWith !== undefined || base.packingStrategy !== undefined) return undefined;
  if (previous.gpuType !== base.gpuType || previous.cell !== base.cell || previous.ests !== base.ests)
    return undefined;
  return sameSlices(previous.slices, base.slices) ? previous : undefined;
};

/** The same hosts and GPUs, in the same order. */
const sameSlices = (a: readonly HostSlice[], b: readonly HostSlice[]): boolean => {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.hostId !== y.hostId || x.gpus.length !== y.gpus.length) return false;
    for (let k = 0; k < x.gpus.length; k++) if (x.gpus[k] !== y.gpus[k]) return false;
  }
  return true;
};
