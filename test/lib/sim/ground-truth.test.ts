import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PerfModel, ThroughputQuery } from '../../../lib/core/model/perf.ts';
import { AnalyticPerfModel } from '../../../lib/core/perf/analytic.ts';
import { type GroundTruthPerfModel, groundTruthModel } from '../../../lib/sim/ground-truth.ts';

const base: PerfModel = new AnalyticPerfModel();
const MODELS = ['resnet50', 'vgg19', 'bert-large', 'transformer', 'lstm-lm', 'gpt3-xl'];
const TYPES = ['V100', 'A100', 'T4', 'H100', 'L4', 'A10G'];
const query = (model: string, gpuType: string): ThroughputQuery => ({
  model,
  batchSize: 0,
  gpuType,
  gpus: 8,
  shape: { level: 'machine', hosts: 1 },
});
const multipliers = (truth: GroundTruthPerfModel): number[] =>
  MODELS.flatMap((m) => TYPES.map((t) => truth.efficiencyMultiplier(m, t)));

describe('ground truth', () => {
  test('the same seed gives the same hidden multipliers, whatever the order of calls', () => {
    const a = multipliers(groundTruthModel(base, { seed: 7 }));
    const reversed = groundTruthModel(base, { seed: 7 });
    const b = MODELS.toReversed()
      .flatMap((m) => TYPES.toReversed().map((t) => [m, t] as const))
      .map(([m, t]) => reversed.efficiencyMultiplier(m, t))
      .toReversed();
    assert.deepEqual(b, a);
    assert.notDeepEqual(multipliers(groundTruthModel(base, { seed: 8 })), a);
  });

  test('multipliers are log-normal around 1, clamped to ±2σ, and keyed by canonical names', () => {
    const truth = groundTruthModel(base, { seed: 3, sigma: 0.15 });
    const values = multipliers(truth);
    for (const v of values) assert.ok(v >= Math.exp(-0.3) && v <= Math.exp(0.3), String(v));
    assert.ok(new Set(values).size > values.length / 2, 'draws vary');
    assert.equal(
      truth.efficiencyMultiplier('ResNet-50', 'v100'),
      truth.efficiencyMultiplier('resnet50', 'V100-16GB'),
    );
  });

  test('the multiplier scales compute time only; communication is kept', () => {
    const truth = groundTruthModel(base, { seed: 11 });
    const q = { ...query('vgg19', 'A100'), shape: { level: 'rack' as const, hosts: 2 } };
    const estimate = base.throughput(q);
    const real = truth.throughput(q);
    const m = truth.efficiencyMultiplier('vgg19', 'A100');
    assert.ok(Math.abs(real.computeSeconds - estimate.computeSeconds / m) < 1e-12);
    assert.equal(real.commSeconds, estimate.commSeconds);
    assert.ok(
      Math.abs(real.iterationsPerSecond - 1 / (estimate.computeSeconds / m + estimate.commSeconds)) < 1e-9,
    );
  });

  test('a job that cannot run still cannot run', () => {
    const truth = groundTruthModel(base, { seed: 1 });
    const oom = {
      model: 'bert-large',
      batchSize: 64,
      gpuType: 'T4',
      gpus: 1,
      shape: { level: 'machine' as const, hosts: 1 },
    };
    assert.equal(truth.throughput(oom).iterationsPerSecond, 0);
  });

  test('per-(job, allocation) noise is small, deterministic and differs between allocations', () => {
    const truth = groundTruthModel(base, { seed: 5, noiseSigma: 0.03 });
    const q = query('resnet50', 'A100');
    const alloc = (gpus: number[]) => ({ gpuType: 'A100-40GB', slices: [{ hostId: 'h1', gpus }] });
    const first = truth.jobThroughput('job-1', alloc([0, 1, 2, 3, 4, 5, 6, 7]), q);
    const again = truth.jobThroughput('job-1', alloc([7, 6, 5, 4, 3, 2, 1, 0]), q);
    assert.equal(first.iterationsPerSecond, again.iterationsPerSecond, 'GPU order does not matter');
    const ratio = first.iterationsPerSecond / truth.throughput(q).iterationsPerSecond;
    assert.ok(ratio >= Math.exp(-0.06) && ratio <= Math.exp(0.06), String(ratio));
    const others = Array.from(
      { length: 8 },
      (_, i) => truth.jobThroughput(`job-${i + 2}`, alloc([0]), q).iterationsPerSecond,
    );
    assert.ok(new Set(others).size > 1);
  });

  test('co-located speeds are perturbed within bounds and never pushed above 1', () => {
    const truth = groundTruthModel(base, { seed: 2, colocationSigma: 0.1 });
    const a = { model: 'resnet50', batchSize: 32 };
    const b = { model: 'lstm-lm', batchSize: 20 };
    const estimate = base.colocation('A100', 1, a, b);
    const real = truth.colocation('A100', 1, a, b);
    real.normalized.forEach((speed, i) => {
      const e = estimate.normalized[i] ?? 0;
      assert.ok(speed <= Math.max(1, e) && speed >= e * Math.exp(-0.2) - 1e-12, `${speed} vs ${e}`);
    });
  });

  test('zero σ is the base model; bad options are rejected', () => {
    const flat = groundTruthModel(base, { seed: 9, sigma: 0, noiseSigma: 0, colocationSigma: 0 });
    const q = query('transformer', 'L4');
    assert.equal(flat.throughput(q).iterationsPerSecond, base.throughput(q).iterationsPerSecond);
    assert.throws(() => groundTruthModel(base, { seed: 1.5 }), /seed must be a safe integer, got 1\.5/);
    assert.throws(() => groundTruthModel(base, { seed: 1, sigma: -1 }), /sigma must be a number ≥ 0, got -1/);
  });
});
