import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobView } from '../../../functions/api/views.ts';
import { age, jobDetails, jobsTable, until } from '../../../lib/cli/job-format.ts';
import { jobItem } from '../aws/support/items.ts';

const NOW = Date.parse('2026-11-23T12:00:00Z') / 1000; // epoch seconds

describe('tessera job: where the model figures come from', () => {
  test('a catalog model says so', () => {
    const view = jobView(jobItem('c'));
    assert.equal(view.modelBasis, 'catalog');
    assert.match(jobDetails(view, NOW), /model: +resnet50 \(catalog\)/);
  });

  test('a model outside the catalog: estimated, then calibrated with the predicted and measured throughput', () => {
    const spec = { ...jobItem('u').spec, model: 'acme/net@0123456789ab', userModel: { name: 'acme/net' } };
    const estimated = jobView(jobItem('u', { spec }));
    assert.equal(estimated.modelBasis, 'estimated');
    assert.match(
      jobDetails(estimated, NOW),
      /model: +acme\/net \(estimated: no profile, conservative until measured\)/,
    );
    const declared = jobView(
      jobItem('d', {
        spec: {
          ...spec,
          userModel: {
            name: 'acme/net',
            profile: { parameters: 1, flopsPerSample: 1, activationBytesPerSample: 1 },
          },
        },
      }),
    );
    assert.match(jobDetails(declared, NOW), /\(declared profile, not yet measured\)/);
    const calibrated = jobView(
      jobItem('u', {
        spec,
        status: 'running',
        measuredThroughput: 2.5,
        modelEstimate: { basis: 'calibrated', samples: 3, predictedThroughput: 2.45 },
      }),
    );
    assert.equal(calibrated.predictedIterationsPerSecond, 2.45);
    const text = jobDetails(calibrated, NOW);
    assert.match(text, /model: +acme\/net \(calibrated from 3 throughput report\(s\)\)/);
    assert.match(text, /throughput: +predicted 2\.45 it\/s on this placement, measured 2\.50 it\/s/);
  });
});

describe('tessera jobs: ages and start estimates from the API times, at a clock in epoch seconds', () => {
  test('a job submitted 3m20s ago that should start in 4m', () => {
    const item = jobItem('w', { submittedAt: NOW - 200, estimatedStart: NOW + 240, waitReason: 'capacity' });
    const view = jobView(item);
    assert.equal(view.submittedAt, '2026-11-23T11:56:40.000Z');
    const table = jobsTable([view], NOW);
    assert.match(table, /in 4m00s/);
    assert.match(table, /3m20s/);
    assert.equal(age(view.submittedAt, NOW + 86_400), '1d0h');
    assert.equal(until(view.estimatedStart, NOW + 300), 'now');
  });
});
