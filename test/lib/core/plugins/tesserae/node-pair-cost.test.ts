import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  GpuAssignmentMemo,
  type NodeContent,
  nodePairCost,
  sharedSaving,
} from '../../../../../lib/core/plugins/tesserae/node-pair-cost.ts';
import { maxWeightAssignment } from '../../../../../lib/core/solvers/lapjv.ts';

/** A node of `gpus` GPUs, each holding up to two of `jobs` job numbers (packing puts two jobs on a GPU). */
const node = (gpus: number, jobs: number) =>
  fc.array(fc.uniqueArray(fc.nat(jobs - 1), { maxLength: 2 }), { minLength: gpus, maxLength: gpus });

/** Tesserae's pair cost computed the plain way: every GPU pair's saving, then the assignment. */
const naivePairCost = (oldNode: NodeContent, newNode: NodeContent, oldGpus: number[], newGpus: number[]) => {
  const m = oldNode.length;
  const n = newNode.length;
  const shared = new Float64Array(m * n);
  for (let a = 0; a < m; a++)
    for (let b = 0; b < n; b++) shared[a * n + b] = sharedSaving(oldNode[a]!, newNode[b]!, oldGpus, newGpus);
  const moveCost = (node: NodeContent, gpus: number[]) =>
    node.reduce((c, jobs) => jobs.reduce((x, j) => x + 0.5 / gpus[j]!, c), 0);
  const out = moveCost(oldNode, oldGpus) + moveCost(newNode, newGpus);
  if (!shared.some((s) => s > 0)) return { cost: out, saving: 0 };
  const best = maxWeightAssignment(shared, m, n);
  return { cost: out - best.total, saving: best.total, oldToNew: [...best.rowToCol] };
};

describe('node-pair cost', () => {
  test('equals the plain every-pair computation, bit for bit, at every node size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }).chain((gpus) =>
          fc.record({
            oldNode: node(gpus, 6),
            newNode: node(gpus, 6),
            oldGpus: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 6, maxLength: 6 }),
            newGpus: fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 6, maxLength: 6 }),
          }),
        ),
        ({ oldNode, newNode, oldGpus, newGpus }) => {
          const pair = nodePairCost(oldNode, newNode, oldGpus, newGpus);
          const naive = naivePairCost(oldNode, newNode, oldGpus, newGpus);
          assert.equal(pair.cost, naive.cost);
          assert.equal(pair.saving, naive.saving);
          if (naive.oldToNew) assert.deepEqual([...pair.oldToNew], naive.oldToNew);
        },
      ),
      { seed: 5, numRuns: 400 },
    );
  });
});

describe('node-pair cost with a shared assignment memo', () => {
  test('gives exactly what solving every pair afresh gives (the relabelling stays byte-identical)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((gpus) =>
          fc.record({
            // Few job numbers and small nodes, so equal savings matrices (memo hits) are common.
            pairs: fc.array(fc.tuple(node(gpus, 4), node(gpus, 4)), { minLength: 1, maxLength: 12 }),
            oldGpus: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
            newGpus: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
          }),
        ),
        ({ pairs, oldGpus, newGpus }) => {
          const memo = new GpuAssignmentMemo();
          for (const [oldNode, newNode] of pairs) {
            const fresh = nodePairCost(oldNode, newNode, oldGpus, newGpus);
            const memoised = nodePairCost(oldNode, newNode, oldGpus, newGpus, memo);
            assert.deepEqual(memoised, fresh);
          }
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });

  test('one memo serving nodes of several sizes, interleaved, still answers as solving afresh does', () => {
    const sized = fc.integer({ min: 1, max: 8 }).chain((gpus) => fc.tuple(node(gpus, 4), node(gpus, 4)));
    fc.assert(
      fc.property(fc.array(sized, { minLength: 2, maxLength: 16 }), (pairs) => {
        const oldGpus = [1, 2, 3, 4];
        const newGpus = [2, 2, 1, 4];
        const memo = new GpuAssignmentMemo();
        for (const [oldNode, newNode] of pairs) {
          assert.deepEqual(
            nodePairCost(oldNode, newNode, oldGpus, newGpus, memo),
            nodePairCost(oldNode, newNode, oldGpus, newGpus),
          );
        }
      }),
      { seed: 13, numRuns: 300 },
    );
  });

  test('reuses the solution of an equal matrix', () => {
    const gpus = [1, 1, 1, 1];
    const memo = new GpuAssignmentMemo();
    const a = nodePairCost([[0], [1]], [[0], [1]], gpus, gpus, memo);
    // Other jobs, same savings matrix.
    const b = nodePairCost([[2], [3]], [[2], [3]], gpus, gpus, memo);
    assert.equal(a.oldToNew, b.oldToNew);
    assert.deepEqual([...a.oldToNew], [0, 1]);
  });

  test('past its size it starts over, and still answers as solving afresh does', () => {
    const gpus = [1, 1, 1, 1];
    const memo = new GpuAssignmentMemo(1);
    const first = nodePairCost([[0], [1]], [[0], [1]], gpus, gpus, memo);
    // A second matrix fills the memo past one entry: the first one's solution is solved again, equal but new.
    const other = nodePairCost([[0], [1]], [[1], [0]], gpus, gpus, memo);
    const again = nodePairCost([[0], [1]], [[0], [1]], gpus, gpus, memo);
    assert.notEqual(again.oldToNew, first.oldToNew);
    assert.deepEqual(again, first);
    assert.deepEqual(other, nodePairCost([[0], [1]], [[1], [0]], gpus, gpus));
  });
});
