import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { empiricalShape } from '../../../../lib/traces/generators/empirical.ts';
import { Random } from '../../../../lib/traces/generators/random.ts';
import type { Trace } from '../../../../lib/traces/types.ts';
import { assertShares } from './distribution.ts';

const trace: Trace = {
  name: 'src',
  format: 'philly',
  source: 'src.csv',
  jobs: [
    { id: 'a', submitTime: 0, gpus: 1, duration: 100 },
    { id: 'b', submitTime: 1, gpus: 1, duration: 300 },
    { id: 'c', submitTime: 2, gpus: 8, duration: 5000 },
    { id: 'd', submitTime: 3, gpus: 64, duration: 9000 },
    { id: 'e', submitTime: 4, gpus: 2 },
  ],
  issues: [],
};

describe('empiricalShape', () => {
  test('draws (GPUs, duration) pairs of the trace’s jobs, uniformly, skipping jobs without a duration', () => {
    const sample = empiricalShape(trace);
    const rng = new Random(11);
    const shapes = Array.from({ length: 20_000 }, () => sample(rng));
    assertShares(
      shapes.map((s) => `${s.gpus}x${s.duration}`),
      new Map([
        ['1x100', 0.25],
        ['1x300', 0.25],
        ['8x5000', 0.25],
        ['64x9000', 0.25],
      ]),
      'pair',
    );
    assert.equal(shapes[0]?.labels?.sampledFrom?.startsWith('src/'), true);
  });

  test('maxGpus keeps jobs that fit; an empty pool is an error', () => {
    const rng = new Random(2);
    const small = empiricalShape(trace, { maxGpus: 8 });
    for (let i = 0; i < 200; i++) assert.ok(small(rng).gpus <= 8);
    assert.throws(() => empiricalShape({ ...trace, jobs: [trace.jobs[4]!] }), /no job with a duration/);
    assert.throws(() => empiricalShape(trace, { maxGpus: 0 }), /maxGpus must be a positive integer/);
  });
});
