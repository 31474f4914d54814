import type { Host } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { Allocation } from '../../model/plan.ts';

/**
 * GPUs per type (N_i of the EasyScale model). A plain record so that it survives JSON (SchedulerState is stored in
 * DynamoDB); types with no GPUs are left out, so two equal counts have the same keys.
 */
export type GpuCounts = Readonly<Record<GpuTypeId, number>>;

export const EMPTY_COUNTS: GpuCounts = Object.freeze({});

/** Counts without zero entries, keys sorted: the one canonical form every helper returns. */
export const normalizeCounts = (counts: Readonly<Record<GpuTypeId, number>>): GpuCounts => {
  const out: Record<GpuTypeId, number> = {};
  for (const type of Object.keys(counts).sort()) {
    const n = counts[type] ?? 0;
    if (!(Number.isInteger(n) && n >= 0))
      throw new RangeError(`GPU count of ${type} must be an integer ≥ 0, got ${n}`);
    if (n > 0) out[type] = n;
  }
  return out;
};

export const countsTotal = (counts: GpuCounts): number => {
  let total = 0;
  for (const type in counts) total += counts[type] ?? 0;
  return total;
};

export const countOf = (counts: GpuCounts, type: GpuTypeId): number => counts[type] ?? 0;

export const countTypes = (counts: GpuCounts): GpuTypeId[] =>
  Object.keys(counts).filter((t) => countOf(counts, t) > 0);

export const countsEqual = (a: GpuCounts, b: GpuCounts): boolean => {
  const ta = countTypes(a);
  return ta.length === countTypes(b).length && ta.every((t) => countOf(a, t) === countOf(b, t));
};

/** `a ≤ b` for every type. */
export const countsWithin = (a: GpuCounts, b: GpuCounts): boolean =>
  countTypes(a).every((t) => countOf(a, t) <= countOf(b, t));

export const addCounts = (a: GpuCounts, b: GpuCounts): GpuCounts => {
  const out: Record<GpuTypeId, number> = { ...a };
  for (const t of countTypes(b)) out[t] = countOf(a, t) + countOf(b, t);
  return normalizeCounts(out);
};

/** `a − b`; throws when some type would go negative (a caller bookkeeping bug, never user input). */
export const subtractCounts = (a: GpuCounts, b: GpuCounts): GpuCounts => {
  const out: Record<GpuTypeId, number> = { ...a };
  for (const t of countTypes(b)) {
    const left = countOf(a, t) - countOf(b, t);
    if (left < 0) throw new RangeError(`cannot take ${countOf(b, t)} ${t} GPUs from ${countOf(a, t)}`);
    out[t] = left;
  }
  return normalizeCounts(out);
};

/** Type-wise minimum. */
export const minCounts = (a: GpuCounts, b: GpuCounts): GpuCounts => {
  const out: Record<GpuTypeId, number> = {};
  for (const t of countTypes(a)) out[t] = Math.min(countOf(a, t), countOf(b, t));
  return normalizeCounts(out);
};

/** Only the given types. */
export const restrictCounts = (counts: GpuCounts, types: Iterable<GpuTypeId>): GpuCounts => {
  const out: Record<GpuTypeId, number> = {};
  for (const t of types) out[t] = countOf(counts, t);
  return normalizeCounts(out);
};

/** A short stable label, e.g. `P100×2+V100-16GB×1`. */
export const countsLabel = (counts: GpuCounts): string =>
  countTypes(counts)
    .sort()
    .map((t) => `${t}×${countOf(counts, t)}`)
    .join('+') || 'none';

/** GPUs per type of an allocation: each slice has its host's type (an elastic allocation may mix types). */
export const allocationCounts = (
  allocation: Allocation,
  hostOf: (hostId: string) => Host | undefined,
): GpuCounts => {
  const out: Record<GpuTypeId, number> = {};
  for (const slice of allocation.slices) {
    const type = hostOf(slice.hostId)?.gpuType ?? allocation.gpuType;
    out[type] = (out[type] ?? 0) + slice.gpus.length;
  }
  return normalizeCounts(out);
};
