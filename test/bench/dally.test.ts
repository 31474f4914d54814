import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DALLY_METRICS,
  paperComparison,
  runDallySetup,
  summarizeDallyVsTiresias,
  withChangeVsTiresias,
} from '../../bench/dally.ts';
import { DALLY_MODEL_MIX, dallyPool, dallyWorkload, meanGpuHours } from '../../bench/dally-workload.ts';
import type { BenchRow } from '../../bench/types.ts';
import { loadCluster } from '../../lib/clusters/load.ts';
import { dallyPerfParameters } from '../../lib/core/plugins/dally/perf.ts';
import { TABLE_I_MODELS } from '../../lib/core/plugins/dally/table-one.ts';
import { loadDefaultPerfModel } from '../../lib/data/perf.ts';
import { groundTruthModel } from '../../lib/sim/ground-truth.ts';
import type { Trace, TraceJob } from '../../lib/traces/types.ts';

const job = (id: string, gpus: number, hours: number): TraceJob => ({
  id,
  submitTime: 0,
  gpus,
  duration: hours * 3600,
});
const PHILLY: Trace = {
  name: 'philly-test',
  format: 'philly',
  source: 'test',
  jobs: [
    job('a', 1, 5),
    job('b', 2, 1),
    job('c', 4, 2),
    job('d', 8, 3),
    job('e', 16, 0.5),
    job('f', 128, 1),
    { id: 'g', submitTime: 0, gpus: 4 },
  ],
  issues: [],
};
const perf = loadDefaultPerfModel({ parameters: dallyPerfParameters(), onWarning: () => {} });

describe('dally workload', () => {
  test('draws distributed Philly jobs that fit a rack, with a duration', () => {
    assert.deepEqual(
      dallyPool(PHILLY).map((j) => j.id),
      ['b', 'c', 'd', 'e'],
    );
    assert.throws(() => dallyPool(PHILLY, { minGpus: 200, maxGpus: 300 }), /no job of 200–300 GPUs/);
  });

  test('Table I models at their default batch per GPU, sizes from the pool, iterations from durations', () => {
    const { jobs } = dallyWorkload(PHILLY, {
      arrivals: 'batch',
      jobs: 40,
      seed: 3,
      load: 1,
      clusterGpus: 128,
      referenceGpuType: 'A100-40GB',
      perf,
    });
    assert.equal(jobs.length, 40);
    assert.ok(jobs.every((j) => j.submitTime === 0 && [2, 4, 8, 16].includes(j.gpus) && j.iterations > 0));
    assert.ok(jobs.every((j) => TABLE_I_MODELS.includes(j.model)));
    const mix = new Map(DALLY_MODEL_MIX.map((m) => [m.model, m.batchSize!]));
    assert.ok(jobs.every((j) => j.batchSize === mix.get(j.model)! * j.gpus));
    assert.equal(new Set(jobs.map((j) => j.model)).size, 6);
  });

  test('Poisson: the same jobs, arriving at the rate that offers the requested load', () => {
    const options = {
      jobs: 200,
      seed: 1,
      clusterGpus: 128,
      referenceGpuType: 'A100-40GB',
      perf,
    } as const;
    const batch = dallyWorkload(PHILLY, { ...options, arrivals: 'batch', load: 1 });
    const poisson = dallyWorkload(PHILLY, { ...options, arrivals: 'poisson', load: 0.5 });
    assert.deepEqual(
      poisson.jobs.map((j) => [j.gpus, j.model, j.iterations]),
      batch.jobs.map((j) => [j.gpus, j.model, j.iterations]),
    );
    // The sample's mean GPU-hours: the pool's jobs drawn for this sample.
    const gpuHours = poisson.jobs.map((j) => {
      const sampled = j.labels!.sampledFrom!.split('/')[1]!;
      const source = PHILLY.jobs.find((p) => p.id === sampled)!;
      return { ...source, id: j.id };
    });
    assert.ok(Math.abs(poisson.ratePerHour! - (0.5 * 128) / meanGpuHours(gpuHours)) < 1e-9);
    const span = poisson.jobs.at(-1)!.submitTime / 3600;
    const expected = 199 / poisson.ratePerHour!;
    assert.ok(span > expected * 0.75 && span < expected * 1.25, `span ${span} h vs ${expected} h`);
  });
});

describe('dally bench rows', () => {
  const rows: BenchRow[] = [
    {
      suite: 'dally',
      setup: 's1',
      arrivals: 'batch',
      policy: 'tiresias',
      makespan: 100,
      avgJct: 50,
      commLatency: 10,
    },
    {
      suite: 'dally',
      setup: 's1',
      arrivals: 'batch',
      policy: 'dally',
      makespan: 40,
      avgJct: 45,
      commLatency: 2,
    },
    {
      suite: 'dally',
      setup: 's2',
      arrivals: 'batch',
      policy: 'tiresias',
      makespan: 200,
      avgJct: 80,
      commLatency: 10,
    },
    {
      suite: 'dally',
      setup: 's2',
      arrivals: 'batch',
      policy: 'dally',
      makespan: 180,
      avgJct: 100,
      commLatency: 5,
    },
  ];

  test('change vs Tiresias in percent, per setup', () => {
    const out = withChangeVsTiresias(rows);
    assert.equal(out[0]!.makespanVsTiresias, 0);
    assert.equal(out[1]!.makespanVsTiresias, -60);
    assert.equal(out[1]!.avgJctVsTiresias, -10);
    assert.equal(out[3]!.avgJctVsTiresias, 25);
    assert.ok(Number.isNaN(out[1]!.p95QueueingVsTiresias));
  });

  test('best and mean over setups, printed beside the paper', () => {
    const summary = summarizeDallyVsTiresias(withChangeVsTiresias(rows));
    const makespan = summary.find((s) => s.metric === 'makespan')!;
    assert.deepEqual(makespan, { metric: 'makespan', arrivals: 'batch', best: -60, mean: -35, setups: 2 });
    assert.equal(
      summary.find((s) => s.metric === 'p95Queueing'),
      undefined,
    );
    const lines = paperComparison(withChangeVsTiresias(rows));
    assert.match(
      lines.find((l) => l.includes('makespan'))!,
      /-60\.0 \/ {2}-35\.0 over 2 {2}\| {3}-69\.0 \/ {2}-68\.0/,
    );
  });

  test('a setup run yields one row per policy with every metric (smoke test of the suite)', () => {
    const cluster = loadCluster('dally-2r');
    const { jobs } = dallyWorkload(PHILLY, {
      arrivals: 'poisson',
      jobs: 12,
      seed: 0,
      load: 1,
      clusterGpus: 128,
      referenceGpuType: 'A100-40GB',
      perf,
    });
    const out = withChangeVsTiresias(
      runDallySetup({
        setup: 'dally-2r/poisson-12',
        cluster,
        arrivals: 'poisson',
        jobs,
        perf,
        truth: groundTruthModel(perf, { seed: 0 }),
        seed: 0,
        policies: ['tiresias', 'dally'],
      }),
    );
    assert.deepEqual(
      out.map((r) => r.policy),
      ['tiresias', 'dally'],
    );
    for (const row of out) {
      assert.equal(row.suite, 'dally');
      assert.equal(row.completed, 12);
      for (const metric of DALLY_METRICS) assert.ok(Number.isFinite(row[metric]), `${row.policy} ${metric}`);
      assert.ok(typeof row.makespanVsTiresias === 'number');
    }
  });
});
