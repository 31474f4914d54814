import type { NodeContent } from './node-pair-cost.ts';

/**
 * The nodes of a class the node-then-GPU renaming provably leaves where they are, so it need not solve them: a node
 * is settled when it holds jobs, carries no GPU of a job new to the class (`fresh`), each of its GPUs holds the same
 * jobs in both plans (none listed twice), and every job on it is on no other node of the class in either plan.
 *
 * Why the plan is the same as solving it. Such a node p shares jobs with no other node, so in the node-level sparse
 * assignment row p (edges: new node p at −saving < 0, or its private column at 0) and column p form a component of
 * their own whose only optimum is p → p; the solver's search from a row only reaches its own component, so the other
 * rows are assigned exactly as with p present. At the GPU level the exact assignment sends every GPU of p to one with
 * the very same jobs (anything less loses saving), so every allocation on p is renamed onto its own GPUs, which the
 * identity gives too; the GPUs it may permute carry the same jobs or none. The floating of 1-GPU work after it sees
 * the same problem either way: which physical GPUs of p are pinned, their slots, each floating GPU's candidates and
 * savings depend on the contents only, a floating GPU of p is matched to the one GPU holding its jobs (nobody else
 * holds them), and empty GPUs of p only take back free slots of p. The property test of `relabel-plan-skip.test.ts`
 * compares with solving everything on random rounds.
 */
export const settledNodes = (
  contentOld: readonly NodeContent[],
  contentNew: readonly NodeContent[],
  oldNodes: readonly (readonly number[] | undefined)[],
  newNodes: readonly (readonly number[] | undefined)[],
  fresh: Uint8Array,
): Uint8Array => {
  const settled = new Uint8Array(contentOld.length);
  for (let p = 0; p < contentOld.length; p++) {
    if (!fresh[p] && sameAlone(p, contentOld[p]!, contentNew[p]!, oldNodes, newNodes)) settled[p] = 1;
  }
  return settled;
};

/** Node p holds jobs, each GPU the same ones in both plans (none twice), and each only on p in both plans. */
const sameAlone = (
  p: number,
  before: NodeContent,
  after: NodeContent,
  oldNodes: readonly (readonly number[] | undefined)[],
  newNodes: readonly (readonly number[] | undefined)[],
): boolean => {
  let any = false;
  for (let g = 0; g < after.length; g++) {
    const was = before[g]!;
    const now = after[g]!;
    if (was.length !== now.length) return false;
    for (let k = 0; k < now.length; k++) {
      const j = now[k]!;
      if (!was.includes(j) || now.indexOf(j) !== k) return false;
      if (!onlyOn(p, oldNodes[j]) || !onlyOn(p, newNodes[j])) return false;
      any = true;
    }
    for (const j of was) if (!now.includes(j)) return false;
  }
  return any;
};

const onlyOn = (p: number, nodes: readonly number[] | undefined): boolean =>
  nodes !== undefined && nodes.length === 1 && nodes[0] === p;
