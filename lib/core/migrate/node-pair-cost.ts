import { maxWeightAssignment } from '../assign/lapjv.ts';

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
): NodePairCost => {
  const out = moveCost(oldNode, oldGpus);
  const into = moveCost(newNode, newGpus);
  const m = oldNode.length;
  const n = newNode.length;
  const shared = new Float64Array(m * n);
  let any = false;
  for (let a = 0; a < m; a++) {
    const here = oldNode[a]!;
    if (here.length === 0) continue;
    for (let b = 0; b < n; b++) {
      const s = sharedSaving(here, newNode[b]!, oldGpus, newGpus);
      if (s > 0) {
        shared[a * n + b] = s;
        any = true;
      }
    }
  }
  if (!any) {
    const identity = Int32Array.from({ length: m }, (_, a) => (a < n ? a : -1));
    return { cost: out + into, saving: 0, oldToNew: identity };
  }
  const best = maxWeightAssignment(shared, m, n);
  return { cost: out + into - best.total, saving: best.total, oldToNew: best.rowToCol };
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
