import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { GAVEL_GPU_DEMAND, gavelShape, generateGavelTrace } from '../../../../lib/traces/generators/gavel.ts';
import { Random } from '../../../../lib/traces/generators/random.ts';
import { assertShares } from './distribution.ts';

describe('gavelShape', () => {
  test('property: durations are 10^x minutes with x in [1.5, 4]; GPU demand in {1, 2, 4, 8}', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = new Random(seed);
        for (let i = 0; i < 200; i++) {
          const { gpus, duration } = gavelShape(rng);
          const x = Math.log10(duration / 60);
          assert.ok(x >= 1.5 - 1e-9 && x <= 4 + 1e-9, String(x));
          assert.ok([1, 2, 4, 8].includes(gpus));
        }
      }),
      { numRuns: 50 },
    );
  });

  test('property: on large samples the size mix matches Gavel (70/10/15/5 %, 80 % short)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const rng = new Random(seed);
        const shapes = Array.from({ length: 20_000 }, () => gavelShape(rng));
        assertShares(
          shapes.map((s) => s.gpus),
          new Map(GAVEL_GPU_DEMAND.map((d) => [d.gpus, d.p])),
          'gpus',
        );
        // x ~ U[1.5, 3] w.p. 0.8, else U[3, 4]: P(x < 2.25) = 0.4, P(x < 3) = 0.8, P(x ≥ 3.5) = 0.1.
        const band = (x: number) => (x < 2.25 ? 'low' : x < 3 ? 'mid' : x < 3.5 ? 'long' : 'longest');
        assertShares(
          shapes.map((s) => band(Math.log10(s.duration / 60))),
          new Map([
            ['low', 0.4],
            ['mid', 0.4],
            ['long', 0.1],
            ['longest', 0.1],
          ]),
          'duration band',
        );
      }),
      { numRuns: 5 },
    );
  });
});

describe('generateGavelTrace', () => {
  test('property: same seed → same trace; arrivals sorted from 0; models from Gavel’s list', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 120 }),
        fc.double({ min: 1, max: 500, noNaN: true }),
        (seed, jobs, ratePerHour) => {
          const trace = generateGavelTrace({ jobs, ratePerHour, seed });
          assert.deepEqual(trace, generateGavelTrace({ jobs, ratePerHour, seed }));
          assert.equal(trace.jobs.length, jobs);
          assert.equal(trace.jobs[0]?.submitTime, 0);
          trace.jobs.forEach((j, i) => {
            if (i > 0) assert.ok(j.submitTime >= trace.jobs[i - 1]!.submitTime);
            assert.ok(j.model !== undefined);
            // Single-GPU-only job types never get more GPUs (as in Gavel).
            if (['recommendation', 'a3c', 'cyclegan'].includes(j.model!)) assert.equal(j.gpus, 1);
          });
        },
      ),
      { numRuns: 50 },
    );
  });

  test('names the trace after its spec and seed', () => {
    const trace = generateGavelTrace({ jobs: 3, ratePerHour: 80, seed: 4 });
    assert.equal(trace.name, 'gavel:3:80');
    assert.equal(trace.source, 'gavel:3:80 (seed 4)');
    assert.equal(trace.format, 'generated');
    assert.deepEqual(
      trace.jobs.map((j) => j.id),
      ['gavel-0', 'gavel-1', 'gavel-2'],
    );
    assert.notDeepEqual(trace.jobs, generateGavelTrace({ jobs: 3, ratePerHour: 80, seed: 5 }).jobs);
  });
});
