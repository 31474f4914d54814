import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type LinearProgram, LP_INFINITY, maximise } from '../../../../lib/core/solvers/lp-solver.ts';

/** max x + y subject to x + 2y ≤ 4, 3x + y ≤ 6, 0 ≤ x, y: optimum at (1.6, 1.2). */
const twoVariables: LinearProgram = {
  columns: 2,
  rows: 2,
  cost: Float64Array.from([1, 1]),
  columnLower: Float64Array.from([0, 0]),
  columnUpper: Float64Array.from([LP_INFINITY, LP_INFINITY]),
  rowLower: Float64Array.from([-LP_INFINITY, -LP_INFINITY]),
  rowUpper: Float64Array.from([4, 6]),
  columnStart: Int32Array.from([0, 2, 4]),
  rowIndex: Int32Array.from([0, 1, 0, 1]),
  value: Float64Array.from([1, 3, 2, 1]),
};
// Without presolve and with no iterations allowed, the simplex stops before the optimum.
const stopsEarly = { presolve: 'off', simplex_iteration_limit: 0 };

const assertOptimum = (x: Float64Array) => {
  assert.ok(Math.abs(x[0]! - 1.6) < 1e-9 && Math.abs(x[1]! - 1.2) < 1e-9, `(${x[0]}, ${x[1]})`);
};

describe('maximise (HiGHS)', () => {
  test('solves with the defaults', () => {
    assertOptimum(maximise(twoVariables));
  });

  test('an attempt that stops without proving optimality passes the program to the next', () => {
    assertOptimum(maximise(twoVariables, [stopsEarly, {}]));
    assertOptimum(maximise(twoVariables, [stopsEarly, { solver: 'ipm' }]));
  });

  test('when no attempt proves optimality it throws, naming each attempt and the status it stopped with', () => {
    assert.throws(
      () => maximise(twoVariables, [stopsEarly, { ...stopsEarly, simplex_strategy: 4 }]),
      (error: Error) =>
        /did not prove optimality/.test(error.message) &&
        (error.message.match(/iterationLimit/g) ?? []).length === 2 &&
        error.message.includes('"simplex_strategy":4'),
    );
  });
});
