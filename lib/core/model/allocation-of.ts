import type { HostSlice } from './cluster.ts';
import type { GpuTypeId } from './gpu.ts';
import type { Allocation, Cell, EstMapping } from './plan.ts';

type Draft = { -readonly [K in keyof Allocation]: Allocation[K] };

/**
 * An allocation with exactly the fields given (an undefined one is left out), always in the order of `Allocation`'s
 * declaration. Every stage builds allocations through here rather than by object spread: a spread in code that sees
 * allocations of several shapes gives each copy a hidden class of its own (tessera's plans held ~40 classes of
 * allocation, tesserae-t's over 1,300), and every stage that then reads them throws its optimised code away ('wrong
 * map') and compiles it again. Built here, allocations with the same fields share one hidden class.
 */
export const allocationOf = (
  gpuType: GpuTypeId,
  slices: readonly HostSlice[],
  cell?: Cell,
  packedWith?: string,
  packingStrategy?: string,
  ests?: EstMapping,
): Allocation => {
  const a: Draft = { gpuType, slices };
  if (cell !== undefined) a.cell = cell;
  if (packedWith !== undefined) a.packedWith = packedWith;
  if (packingStrategy !== undefined) a.packingStrategy = packingStrategy;
  if (ests !== undefined) a.ests = ests;
  return a;
};

/** `allocation` on other GPUs (`{ ...allocation, slices }`, in one hidden class per set of fields). */
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
