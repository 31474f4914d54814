import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import { uniformSpec } from '../../../lib/sim/uniform-spec.ts';

const bare: JobSpec = {
  id: 'j1',
  tenant: 'default',
  model: 'resnet50',
  batchSize: 64,
  gpus: 2,
  iterations: 1000,
  priority: 0,
  packable: true,
  submitTime: 5,
};
const full: JobSpec = {
  ...bare,
  id: 'j2',
  name: 'train',
  gpuTypes: ['v100'],
  preferredGpuType: 'v100',
  deadline: 900,
  elastic: { maxP: 4, minGpus: 1, heterogeneous: false },
  labels: { vc: 'a' },
};

describe('uniformSpec', () => {
  test('every spec gets the same keys in the same order, with the same values', () => {
    const a = uniformSpec(bare);
    const b = uniformSpec(full);
    assert.deepEqual(Object.keys(a), Object.keys(b));
    for (const [made, from] of [
      [a, bare],
      [b, full],
    ] as const) {
      for (const key of Object.keys(made) as (keyof JobSpec)[]) assert.equal(made[key], from[key], key);
      for (const key of Object.keys(from) as (keyof JobSpec)[]) assert.ok(key in made, key);
    }
    assert.equal(a.deadline, undefined);
  });

  test('one object per spec, so every policy simulated on the same jobs sees the same ones', () => {
    assert.equal(uniformSpec(full), uniformSpec(full));
    assert.notEqual(uniformSpec(full), full);
  });
});
