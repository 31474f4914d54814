import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { arrivalTimes } from '../../../../lib/traces/generators/arrivals.ts';
import { Random } from '../../../../lib/traces/generators/random.ts';

describe('arrivalTimes', () => {
  test('property: Poisson arrivals are sorted, start at 0 and number `count`', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.01, max: 10_000, noNaN: true }),
        (seed, count, ratePerHour) => {
          const times = arrivalTimes({ kind: 'poisson', ratePerHour }, count, new Random(seed));
          assert.equal(times.length, count);
          assert.equal(times[0], 0);
          for (let i = 1; i < times.length; i++) assert.ok(times[i]! >= times[i - 1]!);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('property: the mean gap is 3600 / rate seconds on large samples', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 1, max: 500, noNaN: true }), (seed, ratePerHour) => {
        const n = 20_000;
        const times = arrivalTimes({ kind: 'poisson', ratePerHour }, n + 1, new Random(seed));
        const meanGap = times[n]! / n;
        // Exponential gaps: the sample mean's standard error is mean / sqrt(n) ≈ 0.7 %; allow 4 %.
        assert.ok(Math.abs(meanGap / (3600 / ratePerHour) - 1) < 0.04, `${meanGap} vs ${3600 / ratePerHour}`);
      }),
      { numRuns: 10 },
    );
  });

  test('batch arrivals are all at 0; a bad rate is refused', () => {
    assert.deepEqual(arrivalTimes({ kind: 'batch' }, 3, new Random(1)), [0, 0, 0]);
    assert.throws(
      () => arrivalTimes({ kind: 'poisson', ratePerHour: 0 }, 3, new Random(1)),
      /positive number of jobs per hour/,
    );
  });
});
