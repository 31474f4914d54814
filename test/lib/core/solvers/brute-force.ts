/**
 * The optimum of a small rectangular assignment by trying every injective map of the smaller side:
 * the oracle the solvers are checked against. `allowed(i, j)` false forbids an entry.
 */
export const bruteForceMin = (
  values: ArrayLike<number>,
  rows: number,
  cols: number,
  allowed: (i: number, j: number) => boolean = () => true,
): number => {
  const transposed = rows > cols;
  const n = transposed ? cols : rows;
  const m = transposed ? rows : cols;
  const at = (i: number, j: number) => (transposed ? values[j * cols + i]! : values[i * cols + j]!);
  const ok = (i: number, j: number) => (transposed ? allowed(j, i) : allowed(i, j));
  const used = new Array<boolean>(m).fill(false);
  let best = Number.POSITIVE_INFINITY;
  const walk = (i: number, sum: number): void => {
    if (i === n) {
      best = Math.min(best, sum);
      return;
    }
    for (let j = 0; j < m; j++) {
      if (used[j] || !ok(i, j)) continue;
      used[j] = true;
      walk(i + 1, sum + at(i, j));
      used[j] = false;
    }
  };
  walk(0, 0);
  return best;
};
