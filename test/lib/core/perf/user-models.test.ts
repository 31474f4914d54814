import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DeclaredProfile,
  type UserModelRef,
  userModelId,
} from '../../../../lib/core/catalog/user-models.ts';
import { scheduleRound } from '../../../../lib/core/framework/round.ts';
import type { JobSpec } from '../../../../lib/core/model/job.ts';
import { allocationGpuCount } from '../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../lib/core/model/state.ts';
import { AnalyticPerfModel } from '../../../../lib/core/perf/analytic.ts';
import {
  fitComputeScale,
  type ModelMeasurement,
  UserModelPerfModel,
  userModelEntries,
  withUserModels,
} from '../../../../lib/core/perf/user-models.ts';
import { getPolicy } from '../../../../lib/core/policies.ts';
import { cluster, queued, spec } from '../../../support/fixtures.ts';
import { query } from '../../../support/queries.ts';

const base = new AnalyticPerfModel();

/** A job spec for a model outside the catalog, as the job-spec conversion makes it. */
const userSpec = (name: string, profile: DeclaredProfile | undefined, o: Partial<JobSpec> = {}): JobSpec => {
  const ref: UserModelRef = { name, ...(profile ? { profile } : {}) };
  const shape = {
    batchSize: o.batchSize ?? 32,
    gpus: o.gpus ?? 2,
    ...(o.gpuTypes ? { gpuTypes: o.gpuTypes } : {}),
  };
  return spec({ ...o, ...shape, model: userModelId(ref, shape), userModel: ref });
};

/** A 350 M-parameter GPT-style model's real figures (fp16 activations with recomputation). */
const truthProfile: DeclaredProfile = {
  family: 'transformer',
  parameters: 3.5e8,
  flopsPerSample: 4.3e12,
  activationBytesPerSample: 1.4e8,
};

describe('user models in the performance model', () => {
  test('catalog models keep the base model; user models are answered from their figures', () => {
    const job = userSpec('acme/llm', truthProfile);
    const perf = withUserModels(base, [job, spec({ model: 'resnet50' })]);
    assert.ok(perf instanceof UserModelPerfModel);
    assert.deepEqual(
      perf.throughput(query('resnet50', 64, 'A100', 2)),
      base.throughput(query('resnet50', 64, 'A100', 2)),
    );
    const own = perf.throughput(query(job.model, 32, 'A100', 2));
    assert.ok(own.iterationsPerSecond > 0);
    assert.equal(own.source, 'analytic');
    assert.equal(withUserModels(base, [spec()]), base, 'no user model: the base model itself');
    assert.throws(() => base.throughput(query(job.model, 32, 'A100', 2)), /unknown model/);
  });

  test('an estimated model is never co-located, a declared one may be; both say where they come from', () => {
    const estimated = userSpec('acme/mystery', undefined);
    const declared = userSpec('acme/llm', truthProfile);
    const perf = withUserModels(base, [estimated, declared]) as UserModelPerfModel;
    assert.deepEqual(
      perf.colocation('A100', 2, estimated, { model: 'resnet18', batchSize: 32 }).normalized,
      [0, 0],
    );
    assert.ok(
      perf.colocation('A100-80GB', 2, declared, { model: 'resnet18', batchSize: 32 }).normalized[0] > 0,
    );
    assert.equal(perf.throughput(query(estimated.model, 32, 'A100', 2)).source, 'estimated');
    assert.deepEqual(perf.statusOf(estimated.model), { basis: 'estimated' });
    assert.deepEqual(perf.statusOf(declared.model), { basis: 'declared' });
    assert.deepEqual(perf.statusOf('resnet50'), { basis: 'catalog' });
  });

  test('memory-safe: an estimated job runs nowhere with fewer GPUs or less memory than it asked for', () => {
    const job = userSpec('acme/mystery', undefined, { batchSize: 64, gpus: 4 });
    const perf = withUserModels(base, [job]);
    const ips = (type: string, gpus: number) =>
      perf.throughput(query(job.model, 64, type, gpus)).iterationsPerSecond;
    assert.ok(ips('T4', 4) > 0 && ips('A100', 4) > 0 && ips('A100', 8) > 0);
    assert.equal(ips('T4', 2), 0);
    assert.equal(ips('A100', 2), 0, 'not even on a larger GPU: nobody knows what it really needs');
    assert.equal(ips('K80', 4), 0);
  });
});

describe('calibration from measured throughput', () => {
  const measure = (
    truth: AnalyticPerfModel,
    model: string,
    gpuType: string,
    gpus: number,
  ): ModelMeasurement => ({
    model,
    batchSize: 32,
    gpuType,
    gpus,
    level: 'machine',
    hosts: 1,
    iterationsPerSecond: truth.throughput(query(model, 32, gpuType, gpus)).iterationsPerSecond,
    samples: 1,
  });

  test('a pure compute error is recovered exactly, on every placement', () => {
    const job = userSpec('acme/llm', truthProfile);
    const entries = userModelEntries([job]);
    const catalog = { model: (n: string) => entries.get(n)!.profile, gpu: base.catalog.gpu };
    const truth = new AnalyticPerfModel({
      catalog,
      parameters: { ...base.parameters, computeScale: { [job.model]: 0.4 } },
    });
    const raw = new AnalyticPerfModel({ catalog, parameters: base.parameters });
    assert.ok(Math.abs(fitComputeScale(raw, measure(truth, job.model, 'A100', 2))! - 0.4) < 1e-9);
    const perf = new UserModelPerfModel(base, entries, {
      measurements: [measure(truth, job.model, 'A100', 2)],
    });
    for (const [type, gpus] of [
      ['A100', 2],
      ['A100', 8],
      ['V100', 4],
      ['H100', 1],
    ] as const) {
      const q = query(job.model, 32, type, gpus);
      const relative = perf.throughput(q).iterationsPerSecond / truth.throughput(q).iterationsPerSecond;
      assert.ok(Math.abs(relative - 1) < 1e-9, `${gpus} × ${type}: ${relative}`);
    }
    assert.equal(perf.statusOf(job.model).basis, 'calibrated');
  });

  test('the estimate of an undeclared model: far off before the first report, close after it', () => {
    const job = userSpec('acme/llm', undefined, { batchSize: 32, gpus: 2 });
    const real = userModelEntries([job], () => ({ name: 'acme/llm', profile: truthProfile }));
    const truth = new UserModelPerfModel(base, real);
    const before = new UserModelPerfModel(base, userModelEntries([job]));
    const m = { ...measure(truth.analytic, job.model, 'A100', 2) };
    const after = new UserModelPerfModel(base, userModelEntries([job]), { measurements: [m] });
    const error = (perf: UserModelPerfModel, type: string, gpus: number) => {
      const q = query(job.model, 32, type, gpus);
      return perf.throughput(q).iterationsPerSecond / truth.throughput(q).iterationsPerSecond - 1;
    };
    const placements = [
      ['A100', 2],
      ['A100', 4],
      ['V100', 2],
      ['H100', 2],
      ['T4', 8],
    ] as const;
    for (const [type, gpus] of placements)
      assert.ok(error(before, type, gpus) < -0.2, `before, ${gpus} × ${type}`);
    assert.ok(Math.abs(error(after, 'A100', 2)) < 1e-9, 'exact where it was measured');
    for (const [type, gpus] of placements)
      assert.ok(
        Math.abs(error(after, type, gpus)) < 0.15,
        `after, ${gpus} × ${type}: ${error(after, type, gpus)}`,
      );
  });
});

describe('placement honours a declared profile’s memory', () => {
  const mixed = cluster([
    { gpuType: 'T4', hosts: 2, gpusPerHost: 4 },
    { gpuType: 'A100-40GB', hosts: 1, gpusPerHost: 4 },
  ]);
  // 2e9 parameters × 16 bytes = 32 GB of training state per data-parallel replica: only a 40 GB GPU holds it.
  const big: DeclaredProfile = { parameters: 2e9, flopsPerSample: 2.4e13, activationBytesPerSample: 1e8 };
  const round = (jobs: JobSpec[], c = mixed) =>
    scheduleRound({
      now: 0,
      cluster: c,
      jobs: jobs.map((j) => queued(j)),
      state: initialSchedulerState(),
      policy: getPolicy('tessera'),
      perf: withUserModels(base, jobs),
    });

  for (const policy of ['tessera', 'fifo', 'gavel']) {
    test(`${policy}: a job that fits only the A100s runs there, or nowhere`, () => {
      const job = userSpec('acme/big', big, { batchSize: 8, gpus: 2, packable: true });
      const out = scheduleRound({
        now: 0,
        cluster: mixed,
        jobs: [queued(job), queued({ model: 'resnet18', batchSize: 32, gpus: 1 })],
        state: initialSchedulerState(),
        policy: getPolicy(policy),
        perf: withUserModels(base, [job]),
      });
      const a = out.plan.get(job.id);
      assert.ok(a, 'it runs');
      assert.equal(a.gpuType, 'A100-40GB');
      const t4Only = round([job], cluster([{ gpuType: 'T4', hosts: 2, gpusPerHost: 4 }]));
      assert.equal(t4Only.plan.get(job.id), undefined);
    });
  }

  test('an estimated job gets at least the GPUs it asked for and no partner', () => {
    const job = userSpec('acme/mystery', undefined, { batchSize: 64, gpus: 4, packable: true });
    const others = [1, 2, 3].map(() => spec({ model: 'resnet18', batchSize: 32, gpus: 1, packable: true }));
    const out = round([job, ...others]);
    const a = out.plan.get(job.id);
    assert.ok(a);
    assert.ok(allocationGpuCount(a) >= 4);
    assert.equal(a.packedWith, undefined);
  });
});
