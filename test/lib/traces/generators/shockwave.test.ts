import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { Random } from '../../../../lib/traces/generators/random.ts';
import {
  generateShockwaveTrace,
  SHOCKWAVE_DURATIONS,
  SHOCKWAVE_GPU_DEMAND,
  SHOCKWAVE_SIZE_CLASSES,
  shockwaveShape,
} from '../../../../lib/traces/generators/shockwave.ts';
import { assertShares } from './distribution.ts';

describe('shockwave durations', () => {
  test('are linspace(0.2 h, 5 h, 100)', () => {
    assert.equal(SHOCKWAVE_DURATIONS.length, 100);
    assert.equal(SHOCKWAVE_DURATIONS[0], 720);
    assert.ok(Math.abs(SHOCKWAVE_DURATIONS[99]! - 18_000) < 1e-6);
    const step = SHOCKWAVE_DURATIONS[1]! - SHOCKWAVE_DURATIONS[0]!;
    assert.ok(Math.abs(step - (4.8 * 3600) / 99) < 1e-9);
  });
});

describe('shockwaveShape', () => {
  test('property: each class draws from its slice of the durations', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = new Random(seed);
        for (let i = 0; i < 300; i++) {
          const { duration, labels } = shockwaveShape(rng);
          const cls = SHOCKWAVE_SIZE_CLASSES.find((c) => c.name === labels?.sizeClass);
          const index = SHOCKWAVE_DURATIONS.indexOf(duration);
          assert.ok(
            cls !== undefined && index >= cls.from && index < cls.to,
            `${labels?.sizeClass} ${index}`,
          );
        }
      }),
      { numRuns: 50 },
    );
  });

  test('property: on large samples classes and GPU demand follow 0.72/0.2/0.05/0.03 and 0.6/0.3/0.09/0.01', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = new Random(seed);
        const shapes = Array.from({ length: 20_000 }, () => shockwaveShape(rng));
        assertShares(
          shapes.map((s) => s.labels?.sizeClass),
          new Map(SHOCKWAVE_SIZE_CLASSES.map((c) => [c.name, c.p])),
          'size class',
        );
        assertShares(
          shapes.map((s) => s.gpus),
          new Map(SHOCKWAVE_GPU_DEMAND.map((d) => [d.gpus, d.p])),
          'gpus',
        );
      }),
      { numRuns: 5 },
    );
  });
});

describe('generateShockwaveTrace', () => {
  test('property: deterministic per seed, sorted Poisson arrivals from 0', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 100 }), (seed, jobs) => {
        const trace = generateShockwaveTrace({ jobs, ratePerHour: 80, seed });
        assert.deepEqual(trace, generateShockwaveTrace({ jobs, ratePerHour: 80, seed }));
        assert.equal(trace.jobs[0]?.submitTime, 0);
        for (let i = 1; i < trace.jobs.length; i++)
          assert.ok(trace.jobs[i]!.submitTime >= trace.jobs[i - 1]!.submitTime);
      }),
      { numRuns: 50 },
    );
  });
});
