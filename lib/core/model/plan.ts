import type { HostSlice } from './cluster.ts';
import type { GpuTypeId } from './gpu.ts';

/** DP or TP per pipeline stage (Crius parallelism assembly). */
export type StageParallelism = 'dp' | 'tp';

/** Crius Cell: one GPU type, a GPU count and fixed pipeline stages. */
export interface Cell {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  /** GPUs per pipeline stage; length = stage count; sums to `gpus`. */
  readonly stageGpus: readonly number[];
  /** Index of each stage's first layer in the model's layer chain (lib/core/catalog/layers.ts). */
  readonly stageLayers?: readonly number[];
  /** Chosen DP/TP per stage from the estimator, the tuner's "favour". */
  readonly parallelism?: readonly StageParallelism[];
  /** Pruned (dp, tp) candidates per stage for the job's launcher to search. */
  readonly tuningHints?: readonly (readonly { dp: number; tp: number }[])[];
}

/**
 * EasyScale: which virtual ranks (ESTs) each worker runs. Index = worker rank; workers are the allocation's GPUs in
 * `allocationGpuKeys` order (slices in order, GPUs in slice order), one worker process per GPU. Across workers the
 * ranks partition 0..maxP−1 (`TESSERA_ESTS`, docs/trainer-protocol.md).
 */
export type EstMapping = readonly (readonly number[])[];

/**
 * Where and how a job runs. GPUs of one allocation may span hosts; all on one GPU type unless the job is elastic and
 * heterogeneous. Each slice's GPUs are of its host's type (hosts hold one type); for a mixed elastic allocation
 * `gpuType` is the type holding most of its GPUs, and `allocationCounts` (lib/core/plugins/easyscale/counts.ts) gives the
 * count per type.
 */
export interface Allocation {
  /** The GPU type of every slice; for a mixed (elastic, heterogeneous) allocation, its most numerous type. */
  readonly gpuType: GpuTypeId;
  readonly slices: readonly HostSlice[];
  readonly cell?: Cell;
  /** Set when this job shares its GPUs with another (Tesserae packing: at most two jobs per GPU). */
  readonly packedWith?: string;
  /** Best pipeline strategy chosen for the packed pair, when the co-location data names one. */
  readonly packingStrategy?: string;
  readonly ests?: EstMapping;
}

export const allocationGpuCount = (allocation: Allocation): number => {
  // A plain loop: called per job and slice in the round's hot stages.
  let n = 0;
  for (const slice of allocation.slices) n += slice.gpus.length;
  return n;
};

/** Stable key of one GPU. */
export const gpuKey = (hostId: string, gpu: number): string => `${hostId}#${gpu}`;

export const allocationGpuKeys = (allocation: Allocation): string[] =>
  allocation.slices.flatMap((s) => s.gpus.map((g) => gpuKey(s.hostId, g)));

/** Same physical GPUs (order-insensitive), i.e. the job would not move. Allocation-free: rounds call it per job. */
export const sameGpus = (a: Allocation | undefined, b: Allocation | undefined): boolean => {
  if (a === b) return true;
  if (!a || !b || a.slices.length !== b.slices.length) return false;
  for (const slice of a.slices) {
    const other = b.slices.find((s) => s.hostId === slice.hostId);
    if (!other || other.gpus.length !== slice.gpus.length) return false;
    for (const g of slice.gpus) if (!other.gpus.includes(g)) return false;
  }
  return true;
};

/**
 * GPUs in use by a plan. A packed pair shares the same GPUs (both allocations name each other), so each pair is
 * counted once.
 */
export const busyGpuCount = (allocations: Iterable<readonly [string, Allocation]>): number => {
  let busy = 0;
  for (const [jobId, allocation] of allocations) {
    if (allocation.packedWith && allocation.packedWith < jobId) continue;
    busy += allocationGpuCount(allocation);
  }
  return busy;
};

/** The plan a round decides: job id → allocation, for every job that should hold GPUs after the round. */
export type Plan = ReadonlyMap<string, Allocation>;
