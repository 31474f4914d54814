import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnalyticPerfModel } from '../../../../lib/core/perf/analytic.ts';
import { DEFAULT_PERF_PARAMETERS, mergePerfParameters } from '../../../../lib/core/perf/parameters.ts';
import { query } from '../../../support/queries.ts';

const model = new AnalyticPerfModel();
const at = (...args: Parameters<typeof query>) => model.throughput(query(...args));

describe('analytic model: compute', () => {
  test('more GPUs → more throughput for a compute-bound model at a fixed per-GPU batch', () => {
    let previous = 0;
    for (const gpus of [1, 2, 4, 8]) {
      const samples = at('resnet50', 128 * gpus, 'A100', gpus).iterationsPerSecond * 128 * gpus;
      assert.ok(samples > previous, `${gpus} GPUs: ${samples} samples/s`);
      previous = samples;
    }
  });

  test('faster GPUs are faster; compute time follows FLOPs ÷ (peak × efficiency)', () => {
    assert.ok(
      at('resnet50', 64, 'H100', 1).iterationsPerSecond > at('resnet50', 64, 'A100', 1).iterationsPerSecond,
    );
    assert.ok(
      at('resnet50', 64, 'A100', 1).iterationsPerSecond > at('resnet50', 64, 'T4', 1).iterationsPerSecond,
    );
    const b = model.breakdown({
      model: 'resnet50',
      batchSize: 64,
      gpuType: 'A100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
    });
    const expected = (24.66e9 * 64) / (312e12 * DEFAULT_PERF_PARAMETERS.familyEfficiency.cnn);
    assert.ok(Math.abs(b.kernelSeconds / expected - 1) < 1e-3, `${b.kernelSeconds} vs ${expected}`);
    assert.equal(b.computeSeconds, b.kernelSeconds + DEFAULT_PERF_PARAMETERS.iterationOverheadSeconds);
    assert.equal(at('resnet50', 64, 'A100', 1).source, 'analytic');
  });

  test('batch size 0 means the model default', () => {
    assert.deepEqual(at('resnet50', 0, 'V100', 1), at('resnet50', 64, 'V100', 1));
  });
});

describe('analytic model: communication', () => {
  test('network level is slower than rack, rack slower than machine (8 GPUs, network-sensitive model)', () => {
    const machine = at('vgg11', 512, 'A100', 8, 'machine', 1);
    const rack = at('vgg11', 512, 'A100', 8, 'rack', 2);
    const network = at('vgg11', 512, 'A100', 8, 'network', 2);
    assert.ok(machine.iterationsPerSecond > rack.iterationsPerSecond);
    assert.ok(rack.iterationsPerSecond > network.iterationsPerSecond);
    assert.ok(network.commSeconds > rack.commSeconds && rack.commSeconds > machine.commSeconds);
  });

  test('spreading over more hosts costs more', () => {
    const two = at('bert-large', 64, 'V100', 8, 'rack', 2);
    const eight = at('bert-large', 64, 'V100', 8, 'rack', 8);
    assert.ok(two.iterationsPerSecond > eight.iterationsPerSecond);
  });

  test('one host is a machine-level placement whatever level is named', () => {
    assert.deepEqual(at('resnet50', 64, 'A100', 4, 'rack', 1), at('resnet50', 64, 'A100', 4, 'machine', 1));
  });

  test('the per-model level scale (the Dally calibration knob) multiplies raw communication', () => {
    const scaled = new AnalyticPerfModel({
      parameters: mergePerfParameters(DEFAULT_PERF_PARAMETERS, {
        comm: { models: { vgg11: { levelScale: { network: 3 } } } },
      }),
    });
    const q = {
      model: 'vgg11',
      batchSize: 512,
      gpuType: 'A100',
      gpus: 8,
      shape: { level: 'network' as const, hosts: 2 },
    };
    const base = model.breakdown(q).gradientSyncSeconds;
    assert.ok(base > 0);
    assert.ok(Math.abs(scaled.breakdown(q).gradientSyncSeconds / base - 3) < 1e-9);
    const machine = { ...q, shape: { level: 'machine' as const, hosts: 1 } };
    assert.equal(scaled.breakdown(machine).gradientSyncSeconds, model.breakdown(machine).gradientSyncSeconds);
  });
});

describe('analytic model: memory', () => {
  test('a job whose memory does not fit a GPU gets 0 throughput and says why', () => {
    const q = {
      model: 'bert-large',
      batchSize: 64,
      gpuType: 'T4',
      gpus: 1,
      shape: { level: 'machine' as const, hosts: 1 },
    };
    assert.equal(model.throughput(q).iterationsPerSecond, 0);
    assert.match(model.breakdown(q).reason ?? '', /needs [\d.]+ GiB per GPU, T4 has 15\.0 GiB/);
    // The same job fits once its batch is spread over 8 GPUs.
    assert.ok(at('bert-large', 64, 'A100', 8).iterationsPerSecond > 0);
  });

  test('hybrid models split over the smallest model-parallel degree that fits', () => {
    const q = (gpus: number) =>
      model.breakdown({
        model: 'moe-27b',
        batchSize: 512,
        gpuType: 'A100',
        gpus,
        shape: { level: 'rack', hosts: Math.max(1, gpus / 8) },
      });
    assert.equal(q(8).fits, false);
    const fitted = q(32);
    assert.equal(fitted.fits, true);
    assert.equal(fitted.modelParallel, 16);
    assert.equal(fitted.dataParallel, 2);
    assert.ok(fitted.modelParallelCommSeconds > 0);
    // A model that fits whole stays data-parallel.
    const xl = model.breakdown({
      model: 'gpt3-xl',
      batchSize: 512,
      gpuType: 'A100-80GB',
      gpus: 8,
      shape: { level: 'machine', hosts: 1 },
    });
    assert.equal(xl.modelParallel, 1);
  });

  test('a global batch smaller than the replicas cannot run', () => {
    assert.equal(at('cyclegan', 1, 'V100', 2).iterationsPerSecond, 0);
    assert.match(
      model.breakdown({
        model: 'cyclegan',
        batchSize: 1,
        gpuType: 'V100',
        gpus: 2,
        shape: { level: 'machine', hosts: 1 },
      }).reason ?? '',
      /smaller than the 2 data-parallel replicas/,
    );
  });
});

describe('analytic model: co-location and queries', () => {
  test('interference speeds are within (0, 1]; two big jobs that do not fit together give [0, 0]', () => {
    const co = model.colocation(
      'A100',
      1,
      { model: 'resnet50', batchSize: 32 },
      { model: 'lstm-lm', batchSize: 20 },
    );
    assert.equal(co.source, 'estimated');
    for (const s of co.normalized) assert.ok(s > 0 && s <= 1, String(s));
    const oom = model.colocation(
      'T4',
      1,
      { model: 'bert-base', batchSize: 32 },
      { model: 'bert-base', batchSize: 32 },
    );
    assert.deepEqual(oom, { normalized: [0, 0], source: 'analytic' });
  });

  test('a packed query is the job alone × its co-located speed', () => {
    const partner = { model: 'lstm-lm', batchSize: 20 };
    const alone = at('resnet50', 32, 'A100', 1);
    const packed = model.throughput({
      model: 'resnet50',
      batchSize: 32,
      gpuType: 'A100',
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
      partner,
    });
    const speed = model.colocation('A100', 1, { model: 'resnet50', batchSize: 32 }, partner).normalized[0];
    assert.ok(Math.abs(packed.iterationsPerSecond - alone.iterationsPerSecond * speed) < 1e-12);
  });

  test('answers are memoised: the same query returns the same object', () => {
    assert.equal(at('vgg19', 64, 'L4', 1), at('vgg19', 64, 'L4', 1));
  });

  test('bad queries throw RangeErrors naming the field', () => {
    assert.throws(() => at('resnet50', 64, 'A100', 0), /gpus must be an integer ≥ 1, got 0/);
    assert.throws(
      () => at('resnet50', 64, 'A100', 2, 'rack', 3),
      /shape\.hosts must be an integer in \[1, gpus = 2\], got 3/,
    );
    assert.throws(
      () => at('resnet50', 64, 'A100', 2, 'machine', 2),
      /a machine-level placement has one host/,
    );
    assert.throws(() => at('resnet50', -1, 'A100', 1), /batchSize must be a number ≥ 0/);
    assert.throws(() => at('resnet50', 64, 'TPU', 1), /unknown GPU type "TPU"/);
    assert.throws(() => at('nope', 64, 'A100', 1), /unknown model "nope"/);
  });

  test('invalid parameters are rejected with the field path', () => {
    assert.throws(
      () =>
        new AnalyticPerfModel({
          parameters: mergePerfParameters(DEFAULT_PERF_PARAMETERS, {
            tiers: { network: { bandwidthFactor: 0 } },
          }),
        }),
      /tiers\.network\.bandwidthFactor must be a number > 0, got 0/,
    );
    assert.throws(
      () =>
        new AnalyticPerfModel({
          parameters: mergePerfParameters(DEFAULT_PERF_PARAMETERS, { comm: { default: { overlap: 2 } } }),
        }),
      /comm\.default\.overlap must be in \[0, 1\], got 2/,
    );
  });
});
