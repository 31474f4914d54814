import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdaptiveParallelPerfModel } from '../../../../../lib/core/plugins/crius/adaptive-perf.ts';
import {
  CellEstimator,
  consolidatedLayout,
  stageCountsFor,
} from '../../../../../lib/core/plugins/crius/estimator.ts';
import { linearPerf } from '../../../../support/fixtures.ts';

const estimator = new CellEstimator();
const base = linearPerf();
const executor = new AdaptiveParallelPerfModel({ base });
const shapeFor = (gpus: number, hostSize: number) =>
  gpus <= hostSize
    ? ({ level: 'machine', hosts: 1 } as const)
    : ({ level: 'rack', hosts: gpus / hostSize } as const);

describe('adaptive-parallelism executor model', () => {
  test('within a Cell the tuner finds at least the estimator’s plan (it searches a superset)', () => {
    for (const model of ['bert-1.3b', 'wide-resnet-2b', 'moe-2.4b']) {
      for (const gpus of [4, 8, 16]) {
        for (const stages of stageCountsFor(gpus, 18)) {
          const layout = consolidatedLayout(gpus, 4);
          const e = estimator.estimate({ model, batchSize: 512, gpuType: 'A100-40GB', gpus, stages, layout });
          if (!e.feasible) continue;
          const q = { model, batchSize: 512, gpuType: 'A100-40GB', gpus, shape: shapeFor(gpus, 4) };
          const truth = executor.cellThroughput(q, e.cell!);
          assert.ok(
            truth.iterationsPerSecond >= e.iterationsPerSecond * (1 - 1e-9),
            `${model} ${gpus}/${stages}`,
          );
          // Free to pick its stages too, the executor is at least as fast again.
          assert.ok(executor.throughput(q).iterationsPerSecond >= truth.iterationsPerSecond * (1 - 1e-9));
        }
      }
    }
  });

  test('the hidden compute speed makes compute faster, communication unchanged', () => {
    const fast = new AdaptiveParallelPerfModel({ base, computeSpeed: () => 2 });
    const q = {
      model: 'bert-1.3b',
      batchSize: 256,
      gpuType: 'A40',
      gpus: 4,
      shape: { level: 'rack', hosts: 2 },
    } as const;
    const slow = executor.throughput(q);
    const quick = fast.throughput(q);
    assert.ok(quick.iterationsPerSecond > slow.iterationsPerSecond);
    assert.ok(quick.iterationsPerSecond < 2 * slow.iterationsPerSecond);
    assert.ok(slow.commSeconds > 0);
  });

  test('models without a layer chain, and allocations no plan fits, go to the base model', () => {
    const q = {
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'A40',
      gpus: 2,
      shape: { level: 'machine', hosts: 1 },
    } as const;
    assert.deepEqual(executor.throughput(q), base.throughput(q));
    const huge = {
      model: 'moe-27b',
      batchSize: 512,
      gpuType: 'A10',
      gpus: 2,
      shape: { level: 'machine', hosts: 1 },
    } as const;
    assert.equal(executor.adaptiveThroughput(huge), undefined);
    assert.deepEqual(executor.throughput(huge), base.throughput(huge));
  });

  test('a job runs its allocation’s Cell, times its noise', () => {
    const noisy = new AdaptiveParallelPerfModel({ base, jobNoise: () => 1.1, maxJobNoise: 1.1 });
    const layout = consolidatedLayout(8, 4);
    const e = estimator.estimate({
      model: 'bert-1.3b',
      batchSize: 256,
      gpuType: 'A100-40GB',
      gpus: 8,
      stages: 2,
      layout,
    });
    const q = { model: 'bert-1.3b', batchSize: 256, gpuType: 'A100-40GB', gpus: 8, shape: shapeFor(8, 4) };
    const allocation = { gpuType: 'A100-40GB', slices: [], cell: e.cell! };
    const plain = noisy.cellThroughput(q, e.cell!).iterationsPerSecond;
    assert.ok(Math.abs(noisy.jobThroughput('j', allocation, q).iterationsPerSecond - 1.1 * plain) < 1e-12);
    assert.equal(noisy.maxJobNoise, 1.1);
  });
});
