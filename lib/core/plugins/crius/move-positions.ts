import type { GpuTypeId } from '../../model/gpu.ts';
import type { Move } from './search.ts';
import type { VirtualAllocation } from './virtual.ts';

/** Per GPU type a move goes to, the positions of those moves in one candidate list, ascending. */
export type MovePositions = ReadonlyMap<GpuTypeId, readonly number[]>;

/**
 * The positions of `list`'s moves by the type each goes to. Made with the sorted lists (`sortedOf`, cached per type
 * while its holders do not change), so that the search can look only at moves that may fit.
 */
export const positionsByTarget = (list: readonly Move[]): MovePositions => {
  const out = new Map<GpuTypeId, number[]>();
  for (let i = 0; i < list.length; i++) {
    const to = list[i]!.to.gpuType;
    let at = out.get(to);
    if (!at) {
      at = [];
      out.set(to, at);
    }
    at.push(i);
  }
  return out;
};

/**
 * Ascending, the positions of moves that may fit now: within `type` (they free GPUs there and take none elsewhere)
 * or to a type with free GPUs. A move to a type with none cannot fit (every Cell has at least one GPU).
 */
export const openPositions = (
  at: MovePositions,
  type: GpuTypeId,
  vc: VirtualAllocation,
): readonly number[] => {
  let only: readonly number[] | undefined;
  let merged: number[] | undefined;
  for (const [to, positions] of at) {
    if (to !== type && vc.free(to) <= 0) continue;
    if (!only) only = positions;
    else {
      merged ??= [...only];
      for (const p of positions) merged.push(p);
    }
  }
  if (merged) return merged.sort((a, b) => a - b);
  return only ?? NONE;
};

const NONE: readonly number[] = [];
