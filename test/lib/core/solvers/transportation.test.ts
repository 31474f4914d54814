import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { maxWeightAssignment } from '../../../../lib/core/solvers/lapjv.ts';
import { type ClassEdge, maxWeightClassMatching } from '../../../../lib/core/solvers/transportation.ts';

/** The same problem with every item spelled out: the job-level max-weight matching (0 = no edge). */
const expandedOptimum = (left: number[], right: number[], edges: ClassEdge[]): number => {
  const rows = left.flatMap((c, l) => Array<number>(c).fill(l));
  const cols = right.flatMap((c, r) => Array<number>(c).fill(r));
  const weight = new Float64Array(rows.length * cols.length);
  rows.forEach((l, i) => {
    cols.forEach((r, j) => {
      const w = Math.max(0, ...edges.filter((e) => e.left === l && e.right === r).map((e) => e.weight));
      weight[i * cols.length + j] = w;
    });
  });
  return maxWeightAssignment(weight, rows.length, cols.length).total;
};

describe('max-weight matching between classes (min-cost flow)', () => {
  test('matches the job-level max-weight assignment and respects every class count', () => {
    const arb = fc
      .record({
        left: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 }),
        right: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 4 }),
      })
      .chain(({ left, right }) =>
        fc
          .array(
            fc.record({
              left: fc.integer({ min: 0, max: left.length - 1 }),
              right: fc.integer({ min: 0, max: right.length - 1 }),
              weight: fc.integer({ min: -3, max: 20 }).map((w) => w / 8),
            }),
            { maxLength: 10 },
          )
          .map((edges) => ({ left, right, edges })),
      );
    fc.assert(
      fc.property(arb, ({ left, right, edges }) => {
        const flow = maxWeightClassMatching(left, right, edges);
        const used = edges.reduce((s, e, k) => s + flow[k]! * e.weight, 0);
        assert.ok(Math.abs(used - expandedOptimum(left, right, edges)) < 1e-9);
        left.forEach((c, l) => {
          assert.ok(edges.reduce((s, e, k) => s + (e.left === l ? flow[k]! : 0), 0) <= c);
        });
        right.forEach((c, r) => {
          assert.ok(edges.reduce((s, e, k) => s + (e.right === r ? flow[k]! : 0), 0) <= c);
        });
        edges.forEach((e, k) => {
          assert.ok(e.weight > 0 || flow[k] === 0, 'non-positive edge used');
        });
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  test('large classes: 4,000 × 3,000 items in 30 × 30 classes match the smaller side fully', () => {
    const left = Array.from({ length: 30 }, (_, i) => 100 + i * 3);
    const right = Array.from({ length: 30 }, (_, i) => 50 + i * 3);
    const edges = left.flatMap((_, l) =>
      right.map((_, r) => ({ left: l, right: r, weight: 1 + ((l * 7 + r * 13) % 11) / 10 })),
    );
    const flow = maxWeightClassMatching(left, right, edges);
    assert.equal(
      flow.reduce((s, f) => s + f, 0),
      Math.min(
        left.reduce((s, c) => s + c, 0),
        right.reduce((s, c) => s + c, 0),
      ),
    );
  });

  test('rejects bad counts and edges', () => {
    assert.throws(() => maxWeightClassMatching([1.5], [1], []), /leftCount\[0\] = 1.5/);
    assert.throws(
      () => maxWeightClassMatching([1], [1], [{ left: 1, right: 0, weight: 1 }]),
      /edges\[0\].left/,
    );
    assert.throws(
      () => maxWeightClassMatching([1], [1], [{ left: 0, right: 0, weight: Number.NaN }]),
      /must be finite/,
    );
  });
});
