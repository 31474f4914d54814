import type { HostSlice } from './cluster.ts';
import type { GpuTypeId } from './gpu.ts';
import type { Allocation, Cell, EstMapping } from './plan.ts';

/**
 * An allocation with every field of `Allocation` present (those not given as undefined), always in the order of its
 * declaration, so that every allocation a round builds has one hidden class whatever the policy and its fields. Every
 * stage builds allocations through here rather than by object literals of their own or spreads: a spread in code
 * that sees allocations of several shapes gave each copy a hidden class of its own (tessera's plans on
 * batch:200@dally-8r held 39 classes of allocation, tesserae-t's over 1,300), and code compiled for one policy's
 * classes (the simulator's, FreeGpus's, the packing's) was thrown away ('wrong map') and compiled again when the next
 * policy's allocations reached it. Undefined fields read and serialise (JSON, DynamoDB) as absent ones.
 */
export const allocationOf = (
  gpuType: GpuTypeId,
  slices: readonly HostSlice[],
  cell?: Cell,
  packedWith?: string,
  packingStrategy?: string,
  ests?: EstMapping,
): Allocation => ({ gpuType, slices, cell, packedWith, packingStrategy, ests });

/** `allocation` on other GPUs (`{ ...allocation, slices }`). */
export const withSlices = (allocation: Allocation, slices: readonly HostSlice[]): Allocation =>
  allocationOf(
    allocation.gpuType,
    slices,
    allocation.cell,
    allocation.packedWith,
    allocation.packingStrategy,
    allocation.ests,
  );

/**
 * `allocation` sharing its GPUs with `partner` (`{ ...allocation, packedWith: partner, packingStrategy? }`: a strategy
 * of undefined keeps the one it had).
 */
export const pairedWith = (allocation: Allocation, partner: string, strategy?: string): Allocation =>
  allocationOf(
    allocation.gpuType,
    allocation.slices,
    allocation.cell,
    partner,
    strategy ?? allocation.packingStrategy,
    allocation.ests,
  );

/** `allocation` without a partner (no `packedWith`, no `packingStrategy`). */
export const unpaired = (allocation: Allocation): Allocation =>
  allocationOf(allocation.gpuType, allocation.slices, allocation.cell, undefined, undefined, allocation.ests);

/**
 * A copy of each slice and its GPU list, built by `push`: an optimised `Array.prototype.map` returns a holey array
 * where the interpreter's returns a packed one, so slices made by `map` change their hidden class once the code that
 * makes them is optimised (tesserae-t's plans held both kinds), and code reading them deoptimises.
 */
export const copiedSlices = (slices: readonly HostSlice[]): HostSlice[] => {
  const out: HostSlice[] = [];
  for (const s of slices) out.push({ hostId: s.hostId, gpus: [...s.gpus] });
  return out;
};
