import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { partitionPoint } from '../../../../lib/core/framework/partition-point.ts';

describe('partitionPoint', () => {
  const xs = [1, 2, 2, 2, 5, 8];
  const firstAtLeast = (x: number) => partitionPoint(xs.length, (i) => xs[i]! >= x);
  const firstAbove = (x: number) => partitionPoint(xs.length, (i) => xs[i]! > x);

  test('the first index where the predicate holds: lower and upper bounds of an ascending array', () => {
    assert.equal(firstAtLeast(2), 1);
    assert.equal(firstAbove(2), 4);
    assert.equal(firstAtLeast(3), 4);
    assert.equal(firstAbove(5), 5);
  });

  test('0 when it holds everywhere, n when nowhere (and for an empty range)', () => {
    assert.equal(firstAtLeast(0), 0);
    assert.equal(firstAbove(8), xs.length);
    assert.equal(
      partitionPoint(0, () => true),
      0,
    );
  });

  test('agrees with a linear scan on every threshold', () => {
    for (let x = -1; x <= 9; x += 0.5)
      assert.equal(
        firstAtLeast(x),
        xs.findIndex((v) => v >= x) === -1 ? xs.length : xs.findIndex((v) => v >= x),
      );
  });
});
