import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { assignModels, GAVEL_MODELS, validateModels } from '../../../../lib/traces/generators/models.ts';
import type { Trace } from '../../../../lib/traces/types.ts';
import { assertShares } from './distribution.ts';

const traceOf = (gpus: readonly number[], model?: string): Trace => ({
  name: 't',
  format: 'philly',
  source: 't.csv',
  jobs: gpus.map((g, i) => ({ id: `j${i}`, submitTime: i, gpus: g, ...(model && { model }) })),
  issues: [],
});

describe('assignModels', () => {
  const models = [
    { model: 'resnet50', batchSize: 64, weight: 3 },
    { model: 'vgg19', batchSize: 32, weight: 1 },
    { model: 'dcgan', batchSize: 128, weight: 0 },
    { model: 'pointnet', batchSize: 32, weight: 4, maxGpus: 1 },
  ];

  test('fills in model and a global batch (per-GPU batch × GPUs) by weight among entries allowing the GPU count', () => {
    const multi = assignModels(traceOf(new Array(20_000).fill(2)), { models, seed: 1 });
    assertShares(
      multi.jobs.map((j) => `${j.model}/${j.batchSize}`),
      new Map([
        ['resnet50/128', 0.75],
        ['vgg19/64', 0.25],
      ]),
      'model',
    );
    const single = assignModels(traceOf(new Array(8_000).fill(1)), { models, seed: 1 });
    assert.ok(single.jobs.some((j) => j.model === 'pointnet'));
    assert.ok(single.jobs.every((j) => j.model !== 'dcgan'));
  });

  test('property: deterministic per seed; jobs that name a model keep it', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.constantFrom(1, 2, 4, 8), { maxLength: 50 }), (seed, gpus) => {
        const trace = traceOf(gpus);
        assert.deepEqual(assignModels(trace, { models, seed }), assignModels(trace, { models, seed }));
        const named = traceOf(gpus, 'bert-large');
        assert.deepEqual(assignModels(named, { models, seed }), named);
      }),
      { numRuns: 100 },
    );
  });

  test('invalid model lists name the bad entry', () => {
    assert.throws(
      () => validateModels([{ model: 'a', batchSize: 0 }]),
      /models\[0\] \(a\): batchSize must be a positive integer/,
    );
    assert.throws(() => validateModels([{ model: 'a', weight: 0 }]), /every weight is 0/);
    assert.throws(() => validateModels([{ model: 'a', maxGpus: -1 }]), /maxGpus/);
    assert.throws(() => validateModels([{ model: ' ' }]), /models\[0\]: model must be a non-empty id/);
  });

  test('the Gavel list has the 26 job types of the shared throughput table', () => {
    assert.equal(GAVEL_MODELS.length, 26);
    assert.doesNotThrow(() => validateModels(GAVEL_MODELS));
  });
});
