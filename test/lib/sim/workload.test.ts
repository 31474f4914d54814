import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getModelProfile } from '../../../lib/core/catalog/models.ts';
import { toJobSpecs } from '../../../lib/sim/workload.ts';
import type { Trace } from '../../../lib/traces/types.ts';
import { linearPerf } from '../../support/fixtures.ts';

const trace = (jobs: Trace['jobs']): Trace => ({
  name: 't',
  format: 'generated',
  source: 'test',
  jobs,
  issues: [],
});

describe('trace rows → job specs', () => {
  test('a recorded duration becomes the iterations run in that time on the reference GPU type', () => {
    // linearPerf: 1 it/s per GPU × type speed 3 → a 4-GPU job does 12 it/s; 100 s → 1,200 iterations.
    const { jobs, issues } = toJobSpecs(
      trace([{ id: 'a', submitTime: 50, gpus: 4, duration: 100, model: 'resnet50' }]),
      {
        perf: linearPerf({ 'V100-16GB': 3 }),
        referenceGpuType: 'V100-16GB',
      },
    );
    assert.deepEqual(issues, []);
    assert.equal(jobs[0]!.iterations, 1200);
    assert.equal(jobs[0]!.submitTime, 50);
    assert.equal(
      jobs[0]!.batchSize,
      getModelProfile('resnet50').defaultBatchSize,
      'catalog default when the trace has none',
    );
  });

  test('iterations given by the trace are kept; catalog aliases resolve; load scales arrivals', () => {
    const { jobs } = toJobSpecs(
      trace([
        {
          id: 'b',
          submitTime: 100,
          gpus: 1,
          iterations: 77,
          model: 'ResNet-50',
          batchSize: 64,
          tenant: 'vc1',
        },
      ]),
      { perf: linearPerf(), referenceGpuType: 'V100-16GB', load: 2 },
    );
    assert.equal(jobs[0]!.iterations, 77);
    assert.equal(jobs[0]!.model, 'resnet50');
    assert.equal(jobs[0]!.batchSize, 64);
    assert.equal(jobs[0]!.tenant, 'vc1');
    assert.equal(jobs[0]!.submitTime, 50);
  });

  test('rows that cannot become jobs are reported with the reason, never dropped silently', () => {
    const { jobs, issues } = toJobSpecs(
      trace([
        { id: 'nomodel', submitTime: 0, gpus: 1, duration: 10 },
        { id: 'unknown', submitTime: 0, gpus: 1, duration: 10, model: 'resnet9000' },
        { id: 'nowork', submitTime: 0, gpus: 1, model: 'resnet50' },
      ]),
      { perf: linearPerf(), referenceGpuType: 'V100-16GB' },
    );
    assert.equal(jobs.length, 0);
    assert.deepEqual(
      issues.map((i) => [i.jobId, i.message]),
      [
        ['nomodel', 'no model: assign models to the trace first'],
        ['unknown', 'unknown model "resnet9000"'],
        ['nowork', 'neither iterations nor duration'],
      ],
    );
    assert.throws(
      () => toJobSpecs(trace([]), { perf: linearPerf(), referenceGpuType: 'V100-16GB', load: 0 }),
      /--load must be a positive number/,
    );
  });
});
