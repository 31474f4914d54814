import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type SparseMatrix,
  SparseWorkspace,
  sparseMinCostAssignment,
} from '../../../../lib/core/solvers/sparse.ts';
import { bruteForceMin } from './brute-force.ts';

const toSparse = (rows: number, cols: number, entries: (number | null)[]): SparseMatrix => {
  const rowStart = new Int32Array(rows + 1);
  const colIndex: number[] = [];
  const cost: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const c = entries[i * cols + j];
      if (c === null || c === undefined) continue;
      colIndex.push(j);
      cost.push(c);
    }
    rowStart[i + 1] = colIndex.length;
  }
  return { rows, cols, rowStart, colIndex: Int32Array.from(colIndex), cost: Float64Array.from(cost) };
};

describe('sparse min-cost assignment (shortest augmenting paths on a heap)', () => {
  test('equals the brute-force optimum when every row can be assigned; forbidden edges are never used', () => {
    const arb = fc
      .record({ rows: fc.integer({ min: 1, max: 5 }), extra: fc.integer({ min: 0, max: 2 }) })
      .chain(({ rows, extra }) =>
        fc
          .array(fc.option(fc.integer({ min: -6, max: 6 }), { freq: 3, nil: null }), {
            minLength: rows * (rows + extra),
            maxLength: rows * (rows + extra),
          })
          .map((entries) => ({ rows, cols: rows + extra, entries })),
      );
    fc.assert(
      fc.property(arb, ({ rows, cols, entries }) => {
        const values = entries.map((e) => e ?? 0);
        const allowed = (i: number, j: number) => entries[i * cols + j] !== null;
        const best = bruteForceMin(values, rows, cols, allowed);
        const graph = toSparse(rows, cols, entries);
        if (!Number.isFinite(best)) {
          assert.throws(() => sparseMinCostAssignment(graph), /cannot be assigned/);
          return;
        }
        const a = sparseMinCostAssignment(graph);
        assert.equal(a.total, best);
        const cols_ = new Set<number>();
        a.rowToCol.forEach((j, i) => {
          assert.ok(allowed(i, j), `row ${i} on forbidden column ${j}`);
          assert.equal(a.colToRow[j], i);
          cols_.add(j);
        });
        assert.equal(cols_.size, rows);
      }),
      { numRuns: 500, seed: 3 },
    );
  });

  test('rejects malformed graphs', () => {
    const g = toSparse(1, 1, [1]);
    assert.throws(() => sparseMinCostAssignment({ ...g, rowStart: Int32Array.from([0]) }), /rows \+ 1/);
    assert.throws(() => sparseMinCostAssignment({ ...g, colIndex: Int32Array.from([3]) }), /out of range/);
    assert.throws(() => sparseMinCostAssignment({ ...g, cost: Float64Array.from([Number.NaN]) }), /finite/);
  });

  test('one workspace reused over problems of every size gives exactly the answers of fresh arrays', () => {
    const problem = fc
      .record({ rows: fc.integer({ min: 1, max: 7 }), extra: fc.integer({ min: 0, max: 9 }) })
      .chain(({ rows, extra }) =>
        fc
          .array(fc.option(fc.integer({ min: -4, max: 4 }), { freq: 2, nil: null }), {
            minLength: rows * (rows + extra),
            maxLength: rows * (rows + extra),
          })
          // Each row may always stay alone on a private column, as the relabelling's rows may.
          .map((entries) => toSparse(rows, rows + extra, entries))
          .map((g) => withPrivateColumns(g)),
      );
    fc.assert(
      fc.property(fc.array(problem, { minLength: 1, maxLength: 8 }), (graphs) => {
        const workspace = new SparseWorkspace();
        for (const graph of graphs) {
          const fresh = sparseMinCostAssignment(graph);
          const reused = sparseMinCostAssignment(graph, workspace);
          assert.deepEqual(reused, fresh);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

/** The graph with one more column per row, reachable from that row only, at cost 0. */
const withPrivateColumns = (g: SparseMatrix): SparseMatrix => {
  const rowStart = new Int32Array(g.rows + 1);
  const colIndex: number[] = [];
  const cost: number[] = [];
  for (let i = 0; i < g.rows; i++) {
    for (let e = g.rowStart[i]!; e < g.rowStart[i + 1]!; e++) {
      colIndex.push(g.colIndex[e]!);
      cost.push(g.cost[e]!);
    }
    colIndex.push(g.cols + i);
    cost.push(0);
    rowStart[i + 1] = colIndex.length;
  }
  return {
    rows: g.rows,
    cols: g.cols + g.rows,
    rowStart,
    colIndex: Int32Array.from(colIndex),
    cost: Float64Array.from(cost),
  };
};
