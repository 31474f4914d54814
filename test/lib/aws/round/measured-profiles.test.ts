import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProfileItem } from '../../../../lib/aws/items/profile-item.ts';
import { MIN_PROFILE_SAMPLES, withMeasuredProfiles } from '../../../../lib/aws/round/measured-profiles.ts';
import type { PerfModel, ThroughputQuery } from '../../../../lib/core/model/perf.ts';

const base: PerfModel = {
  name: 'base',
  throughput: () => ({ iterationsPerSecond: 2, computeSeconds: 0.3, commSeconds: 0.2, source: 'analytic' }),
  colocation: () => ({ normalized: [0.5, 0.5], source: 'analytic' }),
};
const query: ThroughputQuery = {
  model: 'resnet50',
  batchSize: 64,
  gpuType: 'A10G',
  gpus: 2,
  shape: { level: 'machine', hosts: 1 },
};
const profile = (samples: number, sum: number, overrides: Partial<ProfileItem> = {}): ProfileItem => ({
  signature: 'resnet50#64',
  placement: 'A10G#2#machine#1',
  model: 'resnet50',
  batchSize: 64,
  gpuType: 'A10G',
  gpus: 2,
  level: 'machine',
  hosts: 1,
  samples,
  sumIterationsPerSecond: sum,
  lastIterationsPerSecond: 0,
  updatedAt: 0,
  ...overrides,
});

describe('withMeasuredProfiles', () => {
  test('replaces the estimate with the measured mean, keeping the compute/communication split', () => {
    const model = withMeasuredProfiles(base, [profile(4, 16)]);
    const estimate = model.throughput(query);
    assert.equal(estimate.iterationsPerSecond, 4);
    assert.equal(estimate.source, 'measured');
    assert.ok(Math.abs(estimate.computeSeconds - 0.15) < 1e-12);
    assert.ok(Math.abs(estimate.commSeconds - 0.1) < 1e-12);
  });

  test('ignores profiles with too few samples, other placements and packed pairs', () => {
    const model = withMeasuredProfiles(base, [
      profile(MIN_PROFILE_SAMPLES - 1, 100),
      profile(10, 100, { placement: 'A10G#2#rack#2', level: 'rack', hosts: 2 }),
      profile(10, 100, { placement: 'A10G#2#machine#1#with#bert#8', partner: 'bert#8' }),
    ]);
    assert.equal(model.throughput(query).iterationsPerSecond, 2);
    assert.equal(model.throughput({ ...query, shape: { level: 'rack', hosts: 2 } }).iterationsPerSecond, 10);
    assert.equal(withMeasuredProfiles(base, []), base, 'no profiles: the base model itself');
  });
});
