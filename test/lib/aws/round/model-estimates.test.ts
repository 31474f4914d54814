import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProfileItem } from '../../../../lib/aws/items/profile-item.ts';
import { modelEstimateWrites, roundPerf } from '../../../../lib/aws/round/model-estimates.ts';
import { userModelId } from '../../../../lib/core/catalog/user-models.ts';
import { AnalyticPerfModel } from '../../../../lib/core/perf/analytic.ts';
import { allocation, jobItem, runningJob } from '../support/items.ts';

const base = new AnalyticPerfModel();
const userModel = { name: 'acme/net' };
const model = userModelId(userModel, { batchSize: 64, gpus: 2 });
const own = (jobId: string, overrides = {}) =>
  runningJob(jobId, allocation([['h1', [0, 1]]]), {
    placementLevel: 'machine',
    spec: { ...jobItem(jobId).spec, model, userModel },
    ...overrides,
  });
const sample = (ips: number, samples: number, overrides: Partial<ProfileItem> = {}): ProfileItem => ({
  signature: `${model}#64`,
  placement: 'A10G#2#machine#1',
  model,
  batchSize: 64,
  gpuType: 'A10G',
  gpus: 2,
  level: 'machine',
  hosts: 1,
  samples,
  sumIterationsPerSecond: ips * samples,
  lastIterationsPerSecond: ips,
  updatedAt: 0,
  ...overrides,
});

describe('model estimates in the round', () => {
  test('catalog jobs get no write and the base model is used as it is', () => {
    const catalogJob = runningJob('c', allocation([['h1', [0]]]), { placementLevel: 'machine' });
    const round = roundPerf(base, [catalogJob.spec], []);
    assert.equal(round.userModels, undefined);
    assert.deepEqual(modelEstimateWrites([catalogJob], round), []);
  });

  test('a user-model job records its basis and prediction, and is rewritten only when they change', () => {
    const job = own('u');
    const before = roundPerf(base, [job.spec], []);
    const [write] = modelEstimateWrites([job], before);
    const estimate = write!.changes.set!.modelEstimate as { basis: string; predictedThroughput: number };
    assert.equal(estimate.basis, 'estimated');
    assert.ok(estimate.predictedThroughput > 0);
    assert.deepEqual(modelEstimateWrites([{ ...job, modelEstimate: estimate as never }], before), []);

    const measured = 3 * estimate.predictedThroughput;
    const after = roundPerf(base, [job.spec], [sample(measured, 1)]);
    const [calibrated] = modelEstimateWrites([{ ...job, modelEstimate: estimate as never }], after);
    const next = calibrated!.changes.set!.modelEstimate as {
      basis: string;
      samples: number;
      predictedThroughput: number;
    };
    assert.equal(next.basis, 'calibrated');
    assert.equal(next.samples, 1);
    assert.ok(
      Math.abs(next.predictedThroughput / measured - 1) < 1e-3,
      `${next.predictedThroughput} vs ${measured}`,
    );
  });

  test('a waiting job has a basis but no prediction; packed samples do not calibrate', () => {
    const waiting = jobItem('w', { spec: { ...jobItem('w').spec, model, userModel } });
    const round = roundPerf(base, [waiting.spec], [sample(5, 4, { partner: 'resnet50#64' })]);
    const [write] = modelEstimateWrites([waiting], round);
    assert.deepEqual(write!.changes.set!.modelEstimate, { basis: 'estimated' });
  });
});
