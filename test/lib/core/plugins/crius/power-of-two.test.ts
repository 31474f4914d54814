import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { halfFloor, twoToThe } from '../../../../../lib/core/plugins/crius/power-of-two.ts';
import { roundToPowerOfTwo } from '../../../../../lib/core/plugins/crius/stages.ts';

describe('integer power-of-two helpers', () => {
  test('twoToThe equals 2 ** e on and beyond the 1 << e range', () => {
    for (let e = 0; e <= 40; e++) assert.equal(twoToThe(e), 2 ** e);
    assert.equal(twoToThe(-1), 0.5);
  });

  test('halfFloor equals Math.floor(n / 2) for integers, halves and values past 2^31', () => {
    for (const n of [0, 1, 2, 3, 7, 8, 1023, 2 ** 31 - 1, 2 ** 31, 2 ** 33 + 1, 2.5, 3.5, -3]) {
      assert.equal(halfFloor(n), Math.floor(n / 2), `n = ${n}`);
    }
  });

  test('roundToPowerOfTwo still rounds in log scale, to at least one', () => {
    assert.deepEqual([0.3, 1, 1.4, 1.5, 3, 5.6, 6, 2 ** 31 + 5].map(roundToPowerOfTwo), [
      1,
      1,
      1,
      2,
      4,
      4,
      8,
      2 ** 31,
    ]);
  });
});
