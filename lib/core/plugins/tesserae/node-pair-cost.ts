import { maxWeightAssignment } from '../../solvers/lapjv.ts';
import { SparseWorkspace } from '../../solvers/sparse.ts';

/** The jobs on each GPU of one node (index = GPU), as job numbers. Only jobs present in both plans count. */
export type NodeContent = readonly (readonly number[])[];

export interface NodePairCost {
  /** Tesserae's migration cost of giving the new node's work to the old node, with the best GPU mapping. */
  readonly cost: number;
  /** What the pair avoids compared with moving everything out and in: `out(old) + in(new) − cost`. */
  readonly saving: number;
  /** Best GPU mapping: old GPU a takes new GPU `oldToNew[a]` (−1 when the new node has fewer GPUs). */
  readonly oldToNew: Int32Array;
}

/**
 * Migration cost of an (old node, new node) pair (Tesserae Alg. 3): a job leaving a GPU costs 0.5 and a job
 * arriving costs 0.5, each amortised over the job's GPUs (1/g per GPU), and GPUs are matched to minimise the
 * sum. With `c[a][b] = out(a) + in(b) − shared(a, b)`, where `shared` is what jobs found on both GPUs save, the
 * minimum is `out(node) + in(node) − max Σ shared`, so the GPU assignment is solved as a max-weight one.
 * `oldGpus[j]` / `newGpus[j]` are job j's GPU counts in each plan.
 */
export const nodePairCost = (
  oldNode: NodeContent,
  newNode: NodeContent,
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
  memo?: GpuAssignmentMemo,
): NodePairCost => {
  const { saving, oldToNew } = nodePairSaving(oldNode, newNode, oldGpus, newGpus, memo);
  return { cost: moveCost(oldNode, oldGpus) + moveCost(newNode, newGpus) - saving, saving, oldToNew };
};

/**
 * `nodePairCost` without the cost: the saving and the GPU mapping, which is all the node-level renaming needs (its
 * costs differ from the savings by a constant), so it skips summing both nodes' contents for every pair.
 */
export const nodePairSaving = (
  oldNode: NodeContent,
  newNode: NodeContent,
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
  memo?: GpuAssignmentMemo,
): Omit<NodePairCost, 'cost'> => {
  const m = oldNode.length;
  const n = newNode.length;
  // A memo lends a zeroed scratch matrix (it copies what it keeps): a round builds one per node pair.
  const matrix = memo ? memo.scratch(m * n) : new Float64Array(m * n);
  let any = false;
  if (m * n >= SPARSE_MIN_ENTRIES) {
    addSharedBySparseScan(matrix, oldNode, newNode, oldGpus, newGpus);
    any = hasPositive(matrix);
  } else {
    for (let a = 0; a < m; a++) {
      const here = oldNode[a]!;
      if (here.length === 0) continue;
      for (let b = 0; b < n; b++) {
        const s = sharedSaving(here, newNode[b]!, oldGpus, newGpus);
        if (s > 0) {
          matrix[a * n + b] = s;
          any = true;
        }
      }
    }
  }
  if (!any) {
    const identity = new Int32Array(m);
    for (let a = 0; a < m; a++) identity[a] = a < n ? a : -1;
    return { saving: 0, oldToNew: identity };
  }
  const best = memo ? memo.solve(matrix, m, n) : maxWeightAssignment(matrix, m, n);
  return { saving: best.total, oldToNew: best.rowToCol };
};

const hasPositive = (xs: Float64Array): boolean => {
  for (let k = 0; k < xs.length; k++) if (xs[k]! > 0) return true;
  return false;
};

// From this many GPU pairs on (4 × 4 GPUs), the savings matrix is filled from where each job sits, not pair by pair.
const SPARSE_MIN_ENTRIES = 16;

/**
 * Adds into the zeroed `shared` the savings matrix `sharedSaving(old[a], new[b])` for every GPU pair, by visiting
 * only the pairs that share a job: each entry gets the same terms in the same order (the new GPU's jobs in order),
 * so the same bits. A node has a handful of GPUs, so each job's old GPUs are found by scanning them rather than
 * through a per-pair index.
 */
const addSharedBySparseScan = (
  shared: Float64Array,
  oldNode: NodeContent,
  newNode: NodeContent,
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
): void => {
  const m = oldNode.length;
  const n = newNode.length;
  for (let b = 0; b < n; b++) {
    for (const j of newNode[b]!) {
      const term = 0.5 / oldGpus[j]! + 0.5 / newGpus[j]!;
      // A job listed twice on one GPU counts once there, as `includes` counts it.
      for (let a = 0; a < m; a++) if (oldNode[a]!.includes(j)) shared[a * n + b]! += term;
    }
  }
};

/**
 * GPU-level assignments of one relabelling, by savings matrix: many node pairs of a round have the same matrix (a
 * node kept with the same jobs on it), and the solver is deterministic, so equal matrices share one solution.
 * Lookup is by a hash of the matrix's bits, confirmed entry by entry. Callers must not modify `rowToCol`. One memo may
 * serve many rounds (the relabel stage keeps one per cluster in the round memo): equal matrices recur round after round.
 */
export class GpuAssignmentMemo {
  private readonly solved = new Map<number, SolvedMatrix[]>();
  private entries = 0;
  // Zeroed matrices lent to `nodePairSaving`, one per size (a class has one GPU count), each with its bits.
  private readonly matrices = new Map<number, { readonly values: Float64Array; readonly bits: Int32Array }>();
  /**
   * Scratch arrays for the relabelling's sparse assignments (node level and 1-GPU floating), which it solves one at
   * a time: kept with the memo, which lives as long as the cluster.
   */
  readonly workspace = new SparseWorkspace();

  /** Past `maxEntries` solutions the memo starts over (answers never depend on what it holds). */
  constructor(private readonly maxEntries = 50_000) {}

  /** A zeroed matrix of `size` entries, valid until the next call (`solve` copies what it keeps). */
  scratch(size: number): Float64Array {
    let matrix = this.matrices.get(size);
    if (!matrix) {
      const values = new Float64Array(size);
      matrix = { values, bits: new Int32Array(values.buffer, 0, size * 2) };
      this.matrices.set(size, matrix);
    } else matrix.values.fill(0);
    return matrix.values;
  }

  solve(shared: Float64Array, rows: number, cols: number): { total: number; rowToCol: Int32Array } {
    const lent = this.matrices.get(shared.length);
    const bits =
      lent?.values === shared
        ? lent.bits
        : new Int32Array(shared.buffer, shared.byteOffset, shared.length * 2);
    let hash = rows * 31 + cols;
    for (let k = 0; k < bits.length; k++) hash = (Math.imul(hash, 0x01000193) ^ bits[k]!) | 0;
    let bucket = this.solved.get(hash);
    if (!bucket && this.entries >= this.maxEntries) {
      this.solved.clear();
      this.entries = 0;
    }
    if (!bucket) {
      bucket = [];
      this.solved.set(hash, bucket);
    }
    for (const entry of bucket) if (entry.rows === rows && sameEntries(entry.matrix, shared)) return entry;
    const best = maxWeightAssignment(shared, rows, cols);
    const entry = { rows, matrix: shared.slice(), total: best.total, rowToCol: best.rowToCol };
    bucket.push(entry);
    this.entries++;
    return entry;
  }
}

interface SolvedMatrix {
  readonly rows: number;
  readonly matrix: Float64Array;
  readonly total: number;
  readonly rowToCol: Int32Array;
}

const sameEntries = (a: Float64Array, b: Float64Array): boolean => {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
};

/** 0.5 per job per GPU it occupies, amortised over the job's GPUs: the cost of emptying (or filling) a node. */
export const moveCost = (node: NodeContent, gpusOf: ArrayLike<number>): number => {
  let cost = 0;
  for (const jobs of node) for (const j of jobs) cost += 0.5 / gpusOf[j]!;
  return cost;
};

/**
 * What putting new GPU content `next` on an old GPU holding `old` saves against moving both out and in: for
 * each job on both, its 0.5/g of leaving plus its 0.5/g of arriving.
 */
export const sharedSaving = (
  old: readonly number[],
  next: readonly number[],
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
): number => {
  let s = 0;
  for (const j of next) if (old.includes(j)) s += 0.5 / oldGpus[j]! + 0.5 / newGpus[j]!;
  return s;
};
