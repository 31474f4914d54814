import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getGpuType } from '../../../../lib/core/catalog/gpus.ts';
import { getModelProfile } from '../../../../lib/core/catalog/models.ts';
import { AnalyticPerfModel } from '../../../../lib/core/perf/analytic.ts';
import { calibrateComputeScale } from '../../../../lib/core/perf/calibration.ts';
import { createCompositePerfModel } from '../../../../lib/core/perf/composite.ts';
import { query } from '../../../support/queries.ts';
import { fixtureTables } from '../../data/fixtures/tables.ts';

const composite = createCompositePerfModel(fixtureTables());
const at = (...args: Parameters<typeof query>) => composite.throughput(query(...args));

describe('composite model: source selection', () => {
  test('measured where a table has the (model, batch, type, shape)', () => {
    const e = at('resnet50', 64, 'V100', 1);
    assert.equal(e.source, 'measured');
    assert.equal(e.iterationsPerSecond, 4.394774823323071);
    assert.equal(at('resnet50', 512, 'V100', 8).source, 'measured');
    assert.equal(at('imagenet', 20, 'T4', 1).source, 'measured');
  });

  test('analytic elsewhere: other GPU types, unmeasured models, unmeasured placements', () => {
    assert.equal(at('resnet50', 64, 'A100', 1).source, 'analytic');
    assert.equal(at('gpt3-xl', 512, 'A100', 8).source, 'analytic');
    assert.equal(at('resnet50', 512, 'V100', 8, 'network', 8).source, 'analytic');
    assert.equal(at('resnet50', 48, 'V100', 1).source, 'analytic');
  });

  test('calibration keeps unmeasured GPU types at the measured level, scaled by the peak ratio', () => {
    const v100 = at('resnet50', 64, 'V100', 1).iterationsPerSecond;
    const a100 = at('resnet50', 64, 'A100', 1).iterationsPerSecond;
    // Without calibration the analytic model would make A100 ≈ 10× a Gavel-measured (fp32) V100.
    assert.ok(a100 / v100 > 1.5 && a100 / v100 < 3, `A100/V100 = ${a100 / v100}`);
    const uncalibrated = createCompositePerfModel(fixtureTables(), { calibrate: false });
    const raw = uncalibrated.throughput({
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'A100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
    });
    assert.ok(raw.iterationsPerSecond > a100);
  });

  test('a packed query multiplies the job alone by its co-located speed', () => {
    const partner = { model: 'transformer', batchSize: 64 };
    const packed = composite.throughput({
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'V100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
      partner,
    });
    assert.ok(Math.abs(packed.iterationsPerSecond - 2.55026372359856) < 1e-9);
    assert.equal(packed.source, 'measured');
  });

  test('repeated queries return the memoised object', () => {
    assert.equal(at('vgg19', 64, 'A10G', 4), at('vgg19', 64, 'A10G', 4));
    const a = { model: 'resnet50', batchSize: 64 };
    const b = { model: 'pointnet', batchSize: 32 };
    assert.equal(composite.colocation('L4', 1, a, b), composite.colocation('L4', 1, a, b));
  });
});

describe('composite model: co-location', () => {
  test('measured pairs of this GPU type come first', () => {
    const co = composite.colocation(
      'V100',
      1,
      { model: 'resnet50', batchSize: 64 },
      { model: 'transformer', batchSize: 64 },
    );
    assert.equal(co.source, 'measured');
  });

  test('a pair measured on another GPU type is borrowed, marked estimated', () => {
    const co = composite.colocation(
      'H100',
      1,
      { model: 'resnet50', batchSize: 64 },
      { model: 'transformer', batchSize: 64 },
    );
    assert.deepEqual(co, {
      normalized: [2.55026372359856 / 4.394774823323071, 1.7739250679955958 / 8.61775899193302],
      source: 'estimated',
    });
    // A multi-GPU job borrows the single-GPU pair (Gavel measured no multi-GPU pairs).
    const multi = composite.colocation(
      'V100',
      2,
      { model: 'resnet50', batchSize: 128 },
      { model: 'transformer', batchSize: 128 },
    );
    assert.deepEqual(multi.normalized, co.normalized);
  });

  test('the memory check rules pairs out before borrowed data or the interference model', () => {
    const co = composite.colocation(
      'T4',
      1,
      { model: 'bert-large', batchSize: 8 },
      { model: 'vgg19', batchSize: 64 },
    );
    assert.deepEqual(co, { normalized: [0, 0], source: 'analytic' });
  });

  test('unknown pairs fall back to the interference model', () => {
    const co = composite.colocation(
      'L4',
      1,
      { model: 'pointnet', batchSize: 32 },
      { model: 'dcgan', batchSize: 128 },
    );
    assert.equal(co.source, 'estimated');
    for (const s of co.normalized) assert.ok(s > 0 && s <= 1);
  });
});

describe('calibration', () => {
  test('the multiplier is the geometric mean of measured ÷ analytic on the highest-peak measured type', () => {
    const analytic = new AnalyticPerfModel();
    const profile = getModelProfile('resnet50');
    const v100 = getGpuType('V100');
    const base = (b: number) => analytic.uncalibratedComputeSeconds(profile, v100, b);
    const scale = calibrateComputeScale(
      [
        { model: 'resnet50', gpuType: 'V100-16GB', localBatch: 32, stepSeconds: 2 * base(32) },
        { model: 'resnet50', gpuType: 'V100-16GB', localBatch: 64, stepSeconds: 8 * base(64) },
        // The K80 point is ignored: V100 has the higher peak.
        { model: 'resnet50', gpuType: 'K80', localBatch: 64, stepSeconds: 1000 },
      ],
      analytic,
    );
    assert.ok(Math.abs((scale.resnet50 ?? 0) - 4) < 1e-9);
  });
});
