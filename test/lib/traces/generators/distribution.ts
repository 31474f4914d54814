import assert from 'node:assert/strict';

/** Asserts each observed share of `values` is within 5 standard errors of its expected probability. */
export const assertShares = <T>(
  values: readonly T[],
  expected: ReadonlyMap<T, number>,
  what: string,
): void => {
  const n = values.length;
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  for (const v of counts.keys()) assert.ok(expected.has(v), `${what}: unexpected value ${String(v)}`);
  for (const [v, p] of expected) {
    const share = (counts.get(v) ?? 0) / n;
    const tolerance = 5 * Math.sqrt((p * (1 - p)) / n) + 1e-9;
    assert.ok(
      Math.abs(share - p) <= tolerance,
      `${what} ${String(v)}: share ${share.toFixed(4)}, expected ${p} ± ${tolerance.toFixed(4)}`,
    );
  }
};
