import { type Assignment, assignedTotal, checkMatrix, transpose } from './assignment.ts';

/**
 * The textbook Hungarian method with row and column potentials (Kuhn 1955; Munkres 1957), O(n²·m) for n ≤ m,
 * on plain arrays and without JV's initialisation. Kept as the reference the benchmark compares
 * `minCostAssignment` against; use that one in the scheduler.
 */
export const hungarianMinCost = (cost: ArrayLike<number>, rows: number, cols: number): Assignment => {
  checkMatrix('cost', cost, rows, cols);
  if (rows > cols) {
    const { rowToCol, colToRow } = solve(transpose(cost, rows, cols), cols, rows);
    return { rowToCol: colToRow, colToRow: rowToCol, total: assignedTotal(cost, cols, colToRow) };
  }
  const solved = solve(cost, rows, cols);
  return { ...solved, total: assignedTotal(cost, cols, solved.rowToCol) };
};

const solve = (a: ArrayLike<number>, n: number, m: number) => {
  // 1-based potentials; column 0 is the virtual start of each augmenting path.
  const u: number[] = new Array(n + 1).fill(0);
  const v: number[] = new Array(m + 1).fill(0);
  const p: number[] = new Array(m + 1).fill(0);
  const way: number[] = new Array(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv: number[] = new Array(m + 1).fill(Number.POSITIVE_INFINITY);
    const used: boolean[] = new Array(m + 1).fill(false);
    do {
      used[j0] = true;
      const i0 = p[j0]!;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= m; j++) {
        if (used[j]) continue;
        const cur = a[(i0 - 1) * m + (j - 1)]! - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= m; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else {
          minv[j] = minv[j]! - delta;
        }
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const rowToCol = new Int32Array(n).fill(-1);
  const colToRow = new Int32Array(m).fill(-1);
  for (let j = 1; j <= m; j++) {
    if (p[j]! > 0) {
      rowToCol[p[j]! - 1] = j - 1;
      colToRow[j - 1] = p[j]! - 1;
    }
  }
  return { rowToCol, colToRow };
};
