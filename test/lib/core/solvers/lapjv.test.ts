import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Assignment } from '../../../../lib/core/solvers/assignment.ts';
import { hungarianMinCost } from '../../../../lib/core/solvers/hungarian.ts';
import { maxWeightAssignment, minCostAssignment } from '../../../../lib/core/solvers/lapjv.ts';
import { bruteForceMin } from './brute-force.ts';

/** Random matrices up to 6 × 6; small integer ranges give many ties, the hard case for JV's initialisation. */
const matrixArb = fc
  .record({
    rows: fc.integer({ min: 0, max: 6 }),
    cols: fc.integer({ min: 0, max: 6 }),
    range: fc.constantFrom(2, 5, 1000),
    negative: fc.boolean(),
  })
  .chain(({ rows, cols, range, negative }) =>
    fc
      .array(fc.integer({ min: negative ? -range : 0, max: range }), {
        minLength: rows * cols,
        maxLength: rows * cols,
      })
      .map((values) => ({ rows, cols, values: values.map((v) => v / 4) })),
  );

/** Every row (or column, whichever side is smaller) assigned exactly once, and the two maps agree. */
const assertValid = (a: Assignment, rows: number, cols: number): void => {
  assert.equal(a.rowToCol.length, rows);
  assert.equal(a.colToRow.length, cols);
  let assigned = 0;
  a.rowToCol.forEach((j, i) => {
    if (j < 0) return;
    assigned++;
    assert.equal(a.colToRow[j], i, `row ${i} → col ${j} but col ${j} → row ${a.colToRow[j]}`);
  });
  assert.equal(assigned, Math.min(rows, cols));
  assert.equal(a.colToRow.filter((i) => i >= 0).length, assigned);
};

describe('Jonker–Volgenant linear assignment', () => {
  test('min-cost equals the brute-force optimum on random square and rectangular matrices', () => {
    fc.assert(
      fc.property(matrixArb, ({ rows, cols, values }) => {
        const a = minCostAssignment(values, rows, cols);
        assertValid(a, rows, cols);
        const best = rows === 0 || cols === 0 ? 0 : bruteForceMin(values, rows, cols);
        assert.ok(Math.abs(a.total - best) < 1e-9, `JV ${a.total} vs optimum ${best}`);
      }),
      { numRuns: 600, seed: 7 },
    );
  });

  test('max-weight equals the brute-force optimum of the negated matrix', () => {
    fc.assert(
      fc.property(matrixArb, ({ rows, cols, values }) => {
        const a = maxWeightAssignment(values, rows, cols);
        assertValid(a, rows, cols);
        const best =
          rows === 0 || cols === 0
            ? 0
            : -bruteForceMin(
                values.map((v) => -v),
                rows,
                cols,
              );
        assert.ok(Math.abs(a.total - best) < 1e-9, `JV ${a.total} vs optimum ${best}`);
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  test('the plain Hungarian method finds the same optimum', () => {
    fc.assert(
      fc.property(matrixArb, ({ rows, cols, values }) => {
        const h = hungarianMinCost(values, rows, cols);
        assertValid(h, rows, cols);
        assert.ok(Math.abs(h.total - minCostAssignment(values, rows, cols).total) < 1e-9);
      }),
      { numRuns: 300, seed: 13 },
    );
  });

  test('larger random problems: JV and Hungarian agree (JV initialisation on 60 × 60, rectangular 40 × 90)', () => {
    for (const [rows, cols, seed] of [
      [60, 60, 1],
      [40, 90, 2],
      [90, 40, 3],
    ] as const) {
      let s = seed;
      const next = () => {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        return s;
      };
      const values = Array.from({ length: rows * cols }, () => (next() >>> 8) % 50);
      const jv = minCostAssignment(values, rows, cols);
      assertValid(jv, rows, cols);
      assert.equal(jv.total, hungarianMinCost(values, rows, cols).total);
    }
  });

  test('rejects a wrong size or a non-finite entry, naming it', () => {
    assert.throws(() => minCostAssignment([1, 2, 3], 2, 2), /expected 2 × 2 = 4 entries, got 3/);
    assert.throws(() => minCostAssignment([1, 2, Number.NaN, 4], 2, 2), /cost\[1\]\[0\] = NaN/);
    assert.throws(
      () => maxWeightAssignment([1, Number.POSITIVE_INFINITY], 1, 2),
      /weight\[0\]\[1\] = Infinity/,
    );
    assert.throws(() => minCostAssignment([], -1, 0), /integers ≥ 0/);
  });
});
