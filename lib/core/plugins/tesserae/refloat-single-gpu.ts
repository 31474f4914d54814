import { SparseWorkspace, sparseMinCostAssignment } from '../../solvers/sparse.ts';
import { type NodeContent, sharedSaving } from './node-pair-cost.ts';

export interface RefloatInput {
  /** GPUs per host of the class. */
  readonly gpus: number;
  readonly contentOld: readonly NodeContent[];
  readonly contentNew: readonly NodeContent[];
  readonly oldGpus: ArrayLike<number>;
  readonly newGpus: ArrayLike<number>;
  /** Logical GPUs carrying a multi-GPU job: they stay where the node-level renaming put them. */
  readonly pinned: Uint8Array;
  /** Logical GPUs carrying any job. */
  readonly occupied: Uint8Array;
  /** Logical GPU → physical GPU (flat `node·gpus + gpu`), updated in place. */
  readonly map: Int32Array;
  /** Scratch arrays for the assignment (the same answer without). */
  readonly workspace?: SparseWorkspace;
}

/**
 * Second pass of the relabelling, an addition to Tesserae's algorithm: a logical GPU whose jobs all use one GPU
 * has no consolidation to keep, so it may go to any physical GPU of the class that is not held by a multi-GPU
 * job. The node-level renaming cannot follow small jobs that the new plan groups into nodes differently (a
 * node holding jobs A, B, C, D may come back as A, B, E, F), which otherwise costs a move per regrouped node
 * every round. The pass is a max-saving assignment of such GPUs to such slots — sparse, since a GPU only gains
 * where its jobs were — so it never raises the amortised cost; multi-GPU jobs are untouched.
 */
export const refloatSingleGpuWork = (input: RefloatInput): void => {
  const { gpus, contentOld, contentNew, oldGpus, newGpus, pinned, occupied, map } = input;
  const total = map.length;
  const logicalAt = new Int32Array(total);
  for (let l = 0; l < total; l++) logicalAt[map[l]!] = l;
  const content = (nodes: readonly NodeContent[], flat: number) =>
    nodes[Math.floor(flat / gpus)]![flat % gpus]!;

  // Slots: physical GPUs not held by a pinned logical GPU, numbered densely.
  const slotOf = new Int32Array(total).fill(-1);
  const slots: number[] = [];
  for (let s = 0; s < total; s++) {
    if (pinned[logicalAt[s]!]) continue;
    slotOf[s] = slots.length;
    slots.push(s);
  }
  const floating: number[] = [];
  for (let l = 0; l < total; l++) if (occupied[l] && !pinned[l]) floating.push(l);
  if (floating.length === 0) return;

  // Each job number's old GPUs, ascending (job numbers are dense: an array, not a map).
  const oldPositions = new Array<number[] | undefined>(oldGpus.length);
  for (let s = 0; s < total; s++) {
    for (const j of content(contentOld, s)) {
      const list = oldPositions[j];
      if (list) list.push(s);
      else oldPositions[j] = [s];
    }
  }

  const rows: number[] = [];
  const rowStart: number[] = [0];
  const colIndex: number[] = [];
  const costs: number[] = [];
  const candidates: number[] = [];
  for (const l of floating) {
    const jobs = content(contentNew, l);
    candidates.length = 0;
    for (const j of jobs)
      for (const s of oldPositions[j] ?? []) if (slotOf[s]! >= 0) addSorted(candidates, s);
    if (candidates.length === 0) continue;
    const r = rows.length;
    rows.push(l);
    for (const s of candidates) {
      const saving = sharedSaving(content(contentOld, s), jobs, oldGpus, newGpus);
      if (saving <= 1e-12) continue;
      colIndex.push(slotOf[s]!);
      costs.push(-saving);
    }
    colIndex.push(slots.length + r);
    costs.push(0);
    rowStart.push(colIndex.length);
  }
  const matched = sparseMinCostAssignment(
    {
      rows: rows.length,
      cols: slots.length + rows.length,
      rowStart: new Int32Array(rowStart),
      colIndex: new Int32Array(colIndex),
      cost: new Float64Array(costs),
    },
    input.workspace ?? new SparseWorkspace(),
  );

  const slotTaken = new Uint8Array(slots.length);
  const placed = new Uint8Array(total);
  rows.forEach((l, r) => {
    const c = matched.rowToCol[r]!;
    if (c >= slots.length) return;
    map[l] = slots[c]!;
    slotTaken[c] = 1;
    placed[l] = 1;
  });
  // Everything else that may move (unmatched floating GPUs, then empty ones) keeps its place if still free.
  const movable: number[] = [...floating];
  for (let l = 0; l < total; l++) if (!occupied[l] && !pinned[l]) movable.push(l);
  const waiting: number[] = [];
  for (const l of movable) {
    if (placed[l]) continue;
    const c = slotOf[map[l]!]!;
    if (!slotTaken[c]) {
      slotTaken[c] = 1;
      placed[l] = 1;
    } else waiting.push(l);
  }
  let spare = 0;
  for (const l of waiting) {
    while (slotTaken[spare]) spare++;
    slotTaken[spare] = 1;
    map[l] = slots[spare]!;
  }
};

/** Adds `s` to the ascending `list` unless there (a GPU's candidate slots are a handful: no set, no sorted copy). */
const addSorted = (list: number[], s: number): void => {
  let at = list.length;
  while (at > 0 && list[at - 1]! > s) at--;
  if (at > 0 && list[at - 1] === s) return;
  list.splice(at, 0, s);
};
