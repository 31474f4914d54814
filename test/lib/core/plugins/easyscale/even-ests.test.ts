import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { evenEsts } from '../../../../../lib/core/plugins/easyscale/even-ests.ts';

describe('evenEsts', () => {
  test('partitions 0..L−1 over the workers, contiguous, sizes differing by at most one', () => {
    assert.deepEqual(evenEsts(8, 2), [
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    assert.deepEqual(evenEsts(8, 4), [
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
    assert.deepEqual(evenEsts(8, 3), [
      [0, 1],
      [2, 3, 4],
      [5, 6, 7],
    ]);
    assert.deepEqual(evenEsts(4, 4), [[0], [1], [2], [3]]);
  });

  test('every worker needs an EST', () => {
    assert.throws(() => evenEsts(4, 5), RangeError);
    assert.throws(() => evenEsts(4, 0), RangeError);
  });
});
