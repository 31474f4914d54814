import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { GpuAssignmentMemo, nodePairCost } from '../../../../lib/core/migrate/node-pair-cost.ts';

/** A node of `gpus` GPUs, each holding up to two of `jobs` job numbers (packing puts two jobs on a GPU). */
const node = (gpus: number, jobs: number) =>
  fc.array(fc.uniqueArray(fc.nat(jobs - 1), { maxLength: 2 }), { minLength: gpus, maxLength: gpus });

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

  test('reuses the solution of an equal matrix', () => {
    const gpus = [1, 1, 1, 1];
    const memo = new GpuAssignmentMemo();
    const a = nodePairCost([[0], [1]], [[0], [1]], gpus, gpus, memo);
    // Other jobs, same savings matrix.
    const b = nodePairCost([[2], [3]], [[2], [3]], gpus, gpus, memo);
    assert.equal(a.oldToNew, b.oldToNew);
    assert.deepEqual([...a.oldToNew], [0, 1]);
  });
});
