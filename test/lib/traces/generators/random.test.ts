import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Random } from '../../../../lib/traces/generators/random.ts';

const draws = (rng: Random, n: number): number[] => Array.from({ length: n }, () => rng.float());

describe('Random', () => {
  test('property: the same seed and stream give the same draws, all in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(3), (seed, stream) => {
        const a = draws(new Random(seed, stream), 50);
        assert.deepEqual(a, draws(new Random(seed, stream), 50));
        for (const x of a) assert.ok(x >= 0 && x < 1);
      }),
      { numRuns: 100 },
    );
  });

  test('seeds and streams give different sequences, even for small seeds', () => {
    const firsts = new Set([0, 1, 2, 3].flatMap((seed) => [0, 1, 2].map((s) => new Random(seed, s).float())));
    assert.equal(firsts.size, 12);
    // Small seeds must not start near 1 (unmixed xoroshiro states do).
    for (let seed = 0; seed < 20; seed++) assert.ok(new Random(seed).float() < 0.999_999);
  });

  test('int covers its inclusive range; weightedIndex follows the weights; exponential has mean 1/rate', () => {
    const rng = new Random(7);
    const ints = new Set(Array.from({ length: 500 }, () => rng.int(3, 6)));
    assert.deepEqual([...ints].sort(), [3, 4, 5, 6]);
    const n = 40_000;
    const counts = [0, 0, 0];
    for (let i = 0; i < n; i++) counts[rng.weightedIndex([1, 0, 3])]! += 1;
    assert.equal(counts[1], 0);
    assert.ok(Math.abs(counts[2]! / n - 0.75) < 0.01, String(counts));
    let sum = 0;
    for (let i = 0; i < n; i++) sum += rng.exponential(0.5);
    assert.ok(Math.abs(sum / n - 2) < 0.05, String(sum / n));
  });

  test('rejects seeds that are not integers', () => {
    assert.throws(() => new Random(1.5), /seed must be an integer/);
    assert.throws(() => new Random(0, -1), /stream/);
  });
});
