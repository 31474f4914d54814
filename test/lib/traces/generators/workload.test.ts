import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gavelShape } from '../../../../lib/traces/generators/gavel.ts';
import { generateWorkload } from '../../../../lib/traces/generators/workload.ts';

const base = { name: 'w', jobs: 12, sampler: gavelShape, seed: 3 } as const;

describe('generateWorkload', () => {
  test('a new arrival rate moves arrivals but keeps job sizes and models', () => {
    const slow = generateWorkload({ ...base, arrivals: { kind: 'poisson', ratePerHour: 10 } });
    const fast = generateWorkload({ ...base, arrivals: { kind: 'poisson', ratePerHour: 100 } });
    const batch = generateWorkload({ ...base, arrivals: { kind: 'batch' } });
    const sizes = (t: typeof slow) => t.jobs.map((j) => [j.id, j.gpus, j.duration, j.model, j.batchSize]);
    assert.deepEqual(sizes(slow), sizes(fast));
    assert.deepEqual(sizes(slow), sizes(batch));
    assert.ok(slow.jobs.at(-1)!.submitTime > fast.jobs.at(-1)!.submitTime);
    assert.ok(batch.jobs.every((j) => j.submitTime === 0));
  });

  test('ids are zero-padded in arrival order; models come from the given list', () => {
    const trace = generateWorkload({
      ...base,
      arrivals: { kind: 'batch' },
      idPrefix: 'x',
      models: [{ model: 'vgg19', batchSize: 32 }],
    });
    assert.deepEqual(
      trace.jobs.slice(0, 2).map((j) => j.id),
      ['x-00', 'x-01'],
    );
    assert.ok(trace.jobs.every((j) => j.model === 'vgg19' && j.batchSize === 32 * j.gpus));
  });

  test('bad sizes and model lists are refused with the reason', () => {
    assert.throws(
      () => generateWorkload({ ...base, jobs: 0, arrivals: { kind: 'batch' } }),
      /jobs must be a positive integer/,
    );
    assert.throws(
      () => generateWorkload({ ...base, arrivals: { kind: 'batch' }, models: [] }),
      /models: the list is empty/,
    );
    assert.throws(
      () =>
        generateWorkload({
          ...base,
          jobs: 200,
          arrivals: { kind: 'batch' },
          models: [{ model: 'a3c', maxGpus: 1 }],
        }),
      /no entry with weight > 0 allows a [248]-GPU job/,
    );
  });
});
