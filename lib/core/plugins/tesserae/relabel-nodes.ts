import { sparseMinCostAssignment } from '../../solvers/sparse.ts';
import { GpuAssignmentMemo, type NodeContent, nodePairSaving } from './node-pair-cost.ts';
import type { NodeClass } from './relabel-plan.ts';
import { settledNodes } from './settled-nodes.ts';

/**
 * The node-then-GPU renaming of one host class (Tesserae Alg. 2 and 3). Returns, for every logical GPU
 * `q·gpus + b` of the new plan, the physical GPU `p·gpus + a` it becomes.
 *
 * Tesserae builds the full node × node cost matrix C[p][q] (a GPU-level assignment per pair) and solves the
 * node assignment on it. Here C[p][q] = out(p) + in(q) − saving(p, q), and saving(p, q) is 0 unless the two
 * nodes share a job; Σ out + Σ in does not depend on the assignment, so minimising Σ C is maximising the
 * savings over the sparse graph of node pairs that share a job. That is solved exactly by a sparse assignment
 * in which each old node may also take a private "no partner" column at cost 0 — so empty nodes and pairs that
 * share nothing are never built, and a 10,000-GPU cluster costs what its moving jobs cost. Nodes left without
 * a partner are paired keeping logical = physical where both are free, then in order, GPUs in order.
 */
export const relabelNodes = (
  cls: NodeClass,
  contentOld: readonly NodeContent[],
  contentNew: readonly NodeContent[],
  oldGpus: ArrayLike<number>,
  newGpus: ArrayLike<number>,
  memo: GpuAssignmentMemo = new GpuAssignmentMemo(),
  fresh?: Uint8Array,
): Int32Array => {
  const n = cls.hosts.length;
  const g = cls.gpus;
  const oldNodesOf = nodesOfJobs(contentOld, oldGpus.length);
  const newNodesOf = nodesOfJobs(contentNew, newGpus.length);
  // With `fresh` (the nodes carrying jobs new to the class), settled nodes stay as they are without being solved.
  const settled = fresh
    ? settledNodes(contentOld, contentNew, oldNodesOf.nodes, newNodesOf.nodes, fresh)
    : undefined;
  const candidates = new Map<number, { q: number; saving: number; oldToNew: Int32Array }[]>();
  const seen = new Set<number>();
  for (const j of oldNodesOf.order) {
    for (const p of oldNodesOf.nodes[j]!) {
      if (settled?.[p]) continue;
      for (const q of newNodesOf.nodes[j] ?? []) {
        const key = p * n + q;
        if (seen.has(key)) continue;
        seen.add(key);
        const pair = nodePairSaving(contentOld[p]!, contentNew[q]!, oldGpus, newGpus, memo);
        if (pair.saving <= 1e-12) continue;
        const list = candidates.get(p) ?? [];
        list.push({ q, saving: pair.saving, oldToNew: pair.oldToNew });
        candidates.set(p, list);
      }
    }
  }

  const rows = [...candidates.keys()].sort((a, b) => a - b);
  let edges = rows.length;
  for (const p of rows) edges += candidates.get(p)!.length;
  const rowStart = new Int32Array(rows.length + 1);
  const colIndex = new Int32Array(edges);
  const costs = new Float64Array(edges);
  let e = 0;
  rows.forEach((p, r) => {
    for (const c of candidates.get(p)!) {
      colIndex[e] = c.q;
      costs[e++] = -c.saving;
    }
    colIndex[e] = n + r;
    costs[e++] = 0;
    rowStart[r + 1] = e;
  });
  const matched = sparseMinCostAssignment(
    { rows: rows.length, cols: n + rows.length, rowStart, colIndex, cost: costs },
    memo.workspace,
  );

  const map = new Int32Array(n * g).fill(-1);
  const nodeTaken = new Uint8Array(n);
  const logicalDone = new Uint8Array(n);
  rows.forEach((p, r) => {
    const q = matched.rowToCol[r]!;
    if (q >= n) return;
    const e = candidates.get(p)!.find((x) => x.q === q)!;
    const newToOld = invert(e.oldToNew, g);
    for (let b = 0; b < g; b++) map[q * g + b] = p * g + newToOld[b]!;
    nodeTaken[p] = 1;
    logicalDone[q] = 1;
  });
  const identity = (q: number, p: number) => {
    for (let b = 0; b < g; b++) map[q * g + b] = p * g + b;
    nodeTaken[p] = 1;
    logicalDone[q] = 1;
  };
  if (settled) for (let p = 0; p < n; p++) if (settled[p]) identity(p, p);
  for (let q = 0; q < n; q++) if (!logicalDone[q] && !nodeTaken[q]) identity(q, q);
  let spare = 0;
  for (let q = 0; q < n; q++) {
    if (logicalDone[q]) continue;
    while (nodeTaken[spare]) spare++;
    identity(q, spare);
  }
  return map;
};

/**
 * For each job number (dense, below `jobs`), the nodes holding it, in node order; and the job numbers in the order
 * they are first met (nodes in order, each node's GPUs in order).
 */
const nodesOfJobs = (
  content: readonly NodeContent[],
  jobs: number,
): { nodes: (number[] | undefined)[]; order: number[] } => {
  const nodes = new Array<number[] | undefined>(jobs);
  const order: number[] = [];
  content.forEach((node, p) => {
    for (const jobsOnGpu of node) {
      for (const j of jobsOnGpu) {
        const list = nodes[j];
        if (!list) {
          nodes[j] = [p];
          order.push(j);
        } else if (list[list.length - 1] !== p) list.push(p);
      }
    }
  });
  return { nodes, order };
};

/** old GPU a → new GPU b, turned into new GPU b → old GPU a; GPUs the mapping leaves out pair up in order. */
const invert = (oldToNew: Int32Array, gpus: number): Int32Array => {
  const newToOld = new Int32Array(gpus).fill(-1);
  const used = new Uint8Array(gpus);
  oldToNew.forEach((b, a) => {
    if (b >= 0 && b < gpus) {
      newToOld[b] = a;
      used[a] = 1;
    }
  });
  let spare = 0;
  for (let b = 0; b < gpus; b++) {
    if (newToOld[b] !== -1) continue;
    while (used[spare]) spare++;
    newToOld[b] = spare;
    used[spare] = 1;
  }
  return newToOld;
};
