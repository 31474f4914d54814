import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getGpuType } from '../../../../../lib/core/catalog/gpus.ts';
import {
  CellEstimator,
  consolidatedLayout,
  stageCountsFor,
} from '../../../../../lib/core/plugins/crius/estimator.ts';
import { prunedSplits, tuningHints } from '../../../../../lib/core/plugins/crius/tuning.ts';

const estimator = new CellEstimator();
const GIB = 2 ** 30;

const query = (model: string, gpuType: string, gpus: number, stages: number, batchSize = 256) => ({
  model,
  batchSize,
  gpuType,
  gpus,
  stages,
  layout: consolidatedLayout(gpus, 4),
});

describe('agile Cell estimation', () => {
  test('each stage has an all-DP and an all-TP profile; assembly gives 2^{N_S} plans, the best is the estimate', () => {
    const q = query('bert-1.3b', 'A100-40GB', 8, 2);
    const profiles = estimator.stageProfiles(q);
    assert.equal(profiles?.length, 2);
    for (const p of profiles!) {
      assert.ok(p.dp.feasible && p.tp.feasible);
      // TP shards the training state, DP replicates it.
      assert.ok(p.tp.memoryBytes < p.dp.memoryBytes);
    }
    const plans = estimator.assemble(q);
    assert.equal(plans.length, 2 ** 2);
    const four = estimator.assemble(query('bert-1.3b', 'A100-40GB', 16, 4));
    assert.equal(four.length, 2 ** 4);
    const e = estimator.estimate(q);
    assert.ok(e.feasible);
    const overhead = estimator.parameters.perf.iterationOverheadSeconds;
    const fastest = Math.min(...plans.map((p) => p.iterationSeconds));
    assert.ok(Math.abs(e.iterationSeconds - overhead - fastest) < 1e-9 * fastest);
    assert.equal(e.cell?.stageGpus.length, 2);
    assert.deepEqual(e.cell?.stageGpus, [4, 4]);
  });

  test('out-of-memory Cells are excluded, with the reason', () => {
    // MoE-27B holds 432 GB of training state: no split of 4 A10s (22.5 GiB each) holds it.
    for (const stages of stageCountsFor(4, 34)) {
      const e = estimator.estimate(query('moe-27b', 'A10', 4, stages, 512));
      assert.equal(e.feasible, false);
      assert.equal(e.iterationsPerSecond, 0);
      assert.match(e.reason ?? '', /GiB/);
    }
    const best = estimator.best({
      model: 'moe-27b',
      batchSize: 512,
      gpuType: 'A10',
      gpus: 4,
      layout: consolidatedLayout(4, 2),
    });
    assert.equal(best.feasible, false);
    // With 32 A100s it fits, and every stage's memory is within the GPU's.
    const fits = estimator.best({
      model: 'moe-27b',
      batchSize: 512,
      gpuType: 'A100-40GB',
      gpus: 32,
      layout: consolidatedLayout(32, 4),
    });
    assert.ok(fits.feasible);
    for (const bytes of fits.stageMemoryBytes) assert.ok(bytes <= getGpuType('A100-40GB').memoryGiB * GIB);
  });

  test('an all-DP stage needs the whole model per GPU: BERT-6.7B fits 8 A100s only with TP or pipelining', () => {
    const profiles = estimator.stageProfiles(query('bert-6.7b', 'A100-40GB', 8, 1))!;
    assert.equal(profiles[0]!.dp.feasible, false);
    assert.equal(profiles[0]!.tp.feasible, true);
    const e = estimator.estimate(query('bert-6.7b', 'A100-40GB', 8, 1));
    assert.deepEqual(e.cell?.parallelism, ['tp']);
  });

  test('more GPUs are faster; a faster GPU type is faster', () => {
    const rate = (type: string, gpus: number) =>
      estimator.best({
        model: 'wide-resnet-1b',
        batchSize: 512,
        gpuType: type,
        gpus,
        layout: consolidatedLayout(gpus, 4),
      }).iterationsPerSecond;
    assert.ok(rate('A100-40GB', 8) > rate('A100-40GB', 4));
    assert.ok(rate('A100-40GB', 4) > rate('V100-32GB', 4));
  });

  test('estimates are memoised: asking again computes nothing new', () => {
    const fresh = new CellEstimator();
    const q = query('moe-1.3b', 'A40', 4, 2);
    const first = fresh.estimate(q);
    const cached = fresh.cachedEstimates;
    assert.equal(fresh.estimate(q), first);
    assert.equal(fresh.cachedEstimates, cached);
  });

  test('models without a layer chain are not estimated here', () => {
    assert.equal(estimator.layered('resnet50'), undefined);
    assert.equal(estimator.estimate(query('resnet50', 'A100-40GB', 1, 1)).feasible, false);
  });
});

describe('Cell-guided tuning hints (Crius §5.2)', () => {
  test('a DP favour keeps DP-only … half-hybrid, a TP favour half-hybrid … TP-only', () => {
    assert.deepEqual(prunedSplits(16, 'dp'), [
      { dp: 16, tp: 1 },
      { dp: 8, tp: 2 },
      { dp: 4, tp: 4 },
    ]);
    assert.deepEqual(prunedSplits(16, 'tp'), [
      { dp: 4, tp: 4 },
      { dp: 2, tp: 8 },
      { dp: 1, tp: 16 },
    ]);
    // Non-square: the middle splits go to the side they lean to.
    assert.deepEqual(prunedSplits(8, 'dp'), [
      { dp: 8, tp: 1 },
      { dp: 4, tp: 2 },
    ]);
    assert.deepEqual(prunedSplits(8, 'tp'), [
      { dp: 2, tp: 4 },
      { dp: 1, tp: 8 },
    ]);
    assert.deepEqual(tuningHints([1, 2], ['tp', 'dp']), [[{ dp: 1, tp: 1 }], [{ dp: 2, tp: 1 }]]);
  });

  test('estimated Cells carry their favour and hints', () => {
    const e = estimator.estimate(query('bert-6.7b', 'A100-40GB', 8, 1));
    assert.deepEqual(e.cell?.tuningHints, [prunedSplits(8, 'tp')]);
  });
});
