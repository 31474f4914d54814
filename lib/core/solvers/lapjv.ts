import { type Assignment, assignedTotal, checkMatrix, transpose } from './assignment.ts';

/**
 * Rectangular min-cost linear assignment by Jonker–Volgenant (LAPJV, Computing 38, 1987) on a dense row-major
 * matrix. Square problems get JV's initialisation (column reduction, reduction transfer, two rounds of
 * augmenting row reduction), which assigns most rows cheaply; the rows left free — all rows of a rectangular
 * problem — are assigned by JV's shortest augmenting paths (a Dijkstra search over reduced costs with column
 * prices `v`; a row's price is implicit). The result is optimal: prices stay dual feasible and, in the
 * rectangular case, columns never assigned keep price 0 (Crouse, IEEE TAES 52(4), 2016).
 * O(n²·m) in the worst case for n ≤ m; entries must be finite.
 */
export const minCostAssignment = (cost: ArrayLike<number>, rows: number, cols: number): Assignment => {
  checkMatrix('cost', cost, rows, cols);
  if (rows > cols) {
    // Solve the transpose so that the side every element of which is assigned is the row side.
    const solved = solveRowsAtMostCols(transpose(cost, rows, cols), cols, rows);
    return {
      rowToCol: solved.colToRow,
      colToRow: solved.rowToCol,
      total: assignedTotal(cost, cols, solved.colToRow),
    };
  }
  const solved = solveRowsAtMostCols(cost, rows, cols);
  return { ...solved, total: assignedTotal(cost, cols, solved.rowToCol) };
};

/** Rectangular max-weight linear assignment: the min-cost assignment of the negated weights. */
export const maxWeightAssignment = (weight: ArrayLike<number>, rows: number, cols: number): Assignment => {
  checkMatrix('weight', weight, rows, cols);
  const negated = new Float64Array(weight.length);
  for (let k = 0; k < weight.length; k++) negated[k] = -weight[k]!;
  const solved = minCostAssignment(negated, rows, cols);
  return { ...solved, total: -solved.total };
};

interface Solved {
  readonly rowToCol: Int32Array;
  readonly colToRow: Int32Array;
}

const solveRowsAtMostCols = (c: ArrayLike<number>, n: number, m: number): Solved => {
  const rowsol = new Int32Array(n).fill(-1);
  const colsol = new Int32Array(m).fill(-1);
  const v = new Float64Array(m);
  const free = new Int32Array(n);
  let numFree = 0;
  if (n === m && n > 1) {
    numFree = initialise(c, n, rowsol, colsol, v, free);
  } else {
    for (let i = 0; i < n; i++) free[numFree++] = i;
  }
  augment(c, m, rowsol, colsol, v, free, numFree);
  return { rowToCol: rowsol, colToRow: colsol };
};

/**
 * JV initialisation of a square problem. Afterwards every assigned row sits on a column of minimum reduced
 * cost `c[i][j] − v[j]`, which is the invariant the augmentation needs. Returns how many rows are left free.
 */
const initialise = (
  c: ArrayLike<number>,
  n: number,
  rowsol: Int32Array,
  colsol: Int32Array,
  v: Float64Array,
  free: Int32Array,
): number => {
  // Column reduction: each column's price is its minimum; the row holding it takes the column if still free.
  const matches = new Int32Array(n);
  for (let j = n - 1; j >= 0; j--) {
    let min = c[j]!;
    let imin = 0;
    for (let i = 1; i < n; i++) {
      const h = c[i * n + j]!;
      if (h < min) {
        min = h;
        imin = i;
      }
    }
    v[j] = min;
    matches[imin] = matches[imin]! + 1;
    if (matches[imin] === 1) {
      rowsol[imin] = j;
      colsol[j] = imin;
    } else if (v[j]! < v[rowsol[imin]!]!) {
      const j1 = rowsol[imin]!;
      rowsol[imin] = j;
      colsol[j] = imin;
      colsol[j1] = -1;
    } else {
      colsol[j] = -1;
    }
  }

  // Reduction transfer: a row that won exactly one column passes its slack to that column's price.
  let numFree = 0;
  for (let i = 0; i < n; i++) {
    if (matches[i] === 0) {
      free[numFree++] = i;
    } else if (matches[i] === 1) {
      const j1 = rowsol[i]!;
      let min = Number.POSITIVE_INFINITY;
      for (let j = 0; j < n; j++) {
        if (j !== j1) {
          const h = c[i * n + j]! - v[j]!;
          if (h < min) min = h;
        }
      }
      v[j1] = v[j1]! - min;
    }
  }

  // Augmenting row reduction, twice: a free row takes its cheapest column, evicting its owner when that
  // lowers the column's price. Bounded, because near-equal prices can otherwise bounce a column between rows.
  const budget = 8 * n + 64;
  for (let pass = 0; pass < 2; pass++) {
    let k = 0;
    const previous = numFree;
    numFree = 0;
    let steps = 0;
    while (k < previous) {
      if (++steps > budget) {
        while (k < previous) free[numFree++] = free[k++]!;
        break;
      }
      const i = free[k++]!;
      let umin = c[i * n]! - v[0]!;
      let j1 = 0;
      let usubmin = Number.POSITIVE_INFINITY;
      let j2 = -1;
      for (let j = 1; j < n; j++) {
        const h = c[i * n + j]! - v[j]!;
        if (h < usubmin) {
          if (h >= umin) {
            usubmin = h;
            j2 = j;
          } else {
            usubmin = umin;
            umin = h;
            j2 = j1;
            j1 = j;
          }
        }
      }
      let i0 = colsol[j1]!;
      if (umin < usubmin) {
        v[j1] = v[j1]! - (usubmin - umin);
      } else if (i0 >= 0) {
        j1 = j2;
        i0 = colsol[j2]!;
      }
      rowsol[i] = j1;
      colsol[j1] = i;
      if (i0 >= 0) {
        rowsol[i0] = -1;
        if (umin < usubmin) free[--k] = i0;
        else free[numFree++] = i0;
      }
    }
  }
  return numFree;
};

/** JV shortest augmenting paths for every free row (n ≤ m, so a free column always exists). */
const augment = (
  c: ArrayLike<number>,
  m: number,
  rowsol: Int32Array,
  colsol: Int32Array,
  v: Float64Array,
  free: Int32Array,
  numFree: number,
): void => {
  if (numFree === 0) return;
  const d = new Float64Array(m);
  const pred = new Int32Array(m);
  // collist[0, low) are scanned columns, [low, up) columns at the current minimum distance, [up, m) the rest.
  const collist = new Int32Array(m);
  for (let f = 0; f < numFree; f++) {
    const freeRow = free[f]!;
    const base = freeRow * m;
    for (let j = 0; j < m; j++) {
      d[j] = c[base + j]! - v[j]!;
      pred[j] = freeRow;
      collist[j] = j;
    }
    let low = 0;
    let up = 0;
    let last = -1;
    let min = 0;
    let endOfPath = -1;
    while (endOfPath < 0) {
      if (up === low) {
        last = low - 1;
        min = d[collist[up++]!]!;
        for (let k = up; k < m; k++) {
          const j = collist[k]!;
          const h = d[j]!;
          if (h <= min) {
            if (h < min) {
              up = low;
              min = h;
            }
            collist[k] = collist[up]!;
            collist[up++] = j;
          }
        }
        for (let k = low; k < up; k++) {
          if (colsol[collist[k]!]! < 0) {
            endOfPath = collist[k]!;
            break;
          }
        }
      }
      if (endOfPath < 0) {
        const j1 = collist[low++]!;
        const i = colsol[j1]!;
        const rowBase = i * m;
        const h = c[rowBase + j1]! - v[j1]! - min;
        for (let k = up; k < m; k++) {
          const j = collist[k]!;
          const v2 = c[rowBase + j]! - v[j]! - h;
          if (v2 < d[j]!) {
            pred[j] = i;
            if (v2 === min) {
              if (colsol[j]! < 0) {
                endOfPath = j;
                break;
              }
              collist[k] = collist[up]!;
              collist[up++] = j;
            }
            d[j] = v2;
          }
        }
      }
    }
    // Price update of the scanned columns keeps every reduced cost ≥ 0 and the tree's edges tight.
    for (let k = 0; k <= last; k++) {
      const j1 = collist[k]!;
      v[j1] = v[j1]! + d[j1]! - min;
    }
    let i: number;
    let j = endOfPath;
    do {
      i = pred[j]!;
      colsol[j] = i;
      const next = rowsol[i]!;
      rowsol[i] = j;
      j = next;
    } while (i !== freeRow);
  }
};
