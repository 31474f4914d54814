import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { expandCluster } from '../../../lib/clusters/spec.ts';
import { getInstanceOffering } from '../../../lib/core/catalog/instances.ts';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import { allocationGpuKeys } from '../../../lib/core/model/plan.ts';
import { getPolicy, policyNames } from '../../../lib/core/policies.ts';
import { resolveDataDir } from '../../../lib/data/data-dir.ts';
import { loadWorkload } from '../../../lib/sim/run.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';

const clusterArb = fc
  .array(
    fc.record({
      gpuType: fc.constantFrom('A100', 'V100', 'T4'),
      hosts: fc.integer({ min: 1, max: 4 }),
      gpusPerHost: fc.constantFrom(1, 2, 4, 8),
      hostsPerRack: fc.integer({ min: 1, max: 3 }),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((groups) => cluster(groups, 'random'));

const jobsArb = fc
  .array(
    fc.record({
      gpus: fc.constantFrom(1, 1, 2, 4, 8, 16),
      iterations: fc.integer({ min: 10, max: 5_000 }),
      submitTime: fc.integer({ min: 0, max: 3_000 }),
      gpuTypes: fc.option(fc.constantFrom(['A100'], ['V100'], ['T4', 'V100']), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((rows) =>
    rows.map((r, i): JobSpec => spec({ id: `p${i}`, ...r, ...(r.gpuTypes ? { gpuTypes: r.gpuTypes } : {}) })),
  );

describe('simulator invariants (property tests on random clusters and traces)', () => {
  test('no GPU double-booked, capacity respected, every job ends exactly once, GPU-seconds conserved, JCT ≥ bound', () => {
    fc.assert(
      fc.property(clusterArb, jobsArb, fc.constantFrom(...policyNames()), (c, jobs, policyName) => {
        const typeOf = new Map(c.hosts.map((h) => [h.id, h]));
        const result = simulate({
          cluster: c,
          jobs,
          policy: getPolicy(policyName),
          perf: linearPerf({ A100: 2, V100: 1, T4: 0.5 }),
          config: { roundSeconds: 30, restartSeconds: 5 },
          onRound: (_, out) => {
            const seen = new Set<string>();
            for (const [jobId, allocation] of out.plan) {
              for (const slice of allocation.slices) {
                const host = typeOf.get(slice.hostId);
                assert.ok(host, `${jobId} on unknown host ${slice.hostId}`);
                assert.equal(host.gpuType, allocation.gpuType, `${jobId} on a host of another type`);
                for (const g of slice.gpus)
                  assert.ok(g >= 0 && g < host.gpuCount, `${jobId} on GPU ${g} of ${host.id}`);
              }
              for (const key of allocationGpuKeys(allocation)) {
                assert.ok(!seen.has(key) || allocation.packedWith, `GPU ${key} double-booked (${jobId})`);
                seen.add(key);
              }
            }
          },
        });
        assert.equal(result.jobs.length, jobs.length);
        assert.equal(new Set(result.jobs.map((j) => j.id)).size, jobs.length);
        const capacityOf = (types?: readonly string[]) =>
          Math.max(
            0,
            ...['A100', 'V100', 'T4']
              .filter((t) => !types || types.includes(t))
              .map((t) => c.hosts.filter((h) => h.gpuType === t).reduce((n, h) => n + h.gpuCount, 0)),
          );
        for (const job of result.jobs) {
          const input = jobs.find((j) => j.id === job.id)!;
          const fits = input.gpus <= capacityOf(input.gpuTypes);
          assert.equal(
            job.outcome,
            fits ? 'completed' : 'unschedulable',
            `${policyName}: ${job.id} ${job.reason ?? ''}`,
          );
          if (job.outcome === 'completed')
            assert.ok(job.jct! >= job.jctLowerBound - 1e-6, `${job.id} beat its bound`);
        }
        const attained = result.jobs.reduce((s, j) => s + j.gpuSeconds, 0);
        assert.ok(
          Math.abs(attained - result.busyGpuSeconds) <= 1e-6 * Math.max(1, attained),
          'GPU-seconds conserved',
        );
        const busyPeak = Math.max(0, ...result.timeline.map((p) => p.busyGpus));
        assert.ok(busyPeak <= result.totalGpus);
      }),
      { numRuns: 60, seed: 42 },
    );
  });

  test('the JCT bound covers every share a policy may give: a job spread over hosts that runs faster on fewer GPUs', () => {
    // Tiresias's tf_job.csv: vgg19 on 12 GPUs of 4-GPU hosts is bound by its gradient all-reduce across three hosts;
    // ElasticFlow gives it 4 GPUs of one host (a power of two below its request), faster than any 6–24-GPU Cell.
    const w = loadWorkload({
      trace: join(resolveDataDir(), 'tiresias', 'tf_job.csv'),
      cluster: 'tiresias-n32g4',
    });
    assert.deepEqual(
      w.jobs.map((j) => [j.model, j.gpus]),
      [['vgg19', 12]],
    );
    const result = simulate({
      cluster: w.cluster,
      jobs: w.jobs,
      policy: getPolicy('elasticflow'),
      perf: w.perf,
      truth: w.truth,
    });
    const [record] = result.jobs;
    assert.equal(record!.outcome, 'completed');
    assert.ok(record!.gpuSeconds < 12 * record!.jct!, 'ran on fewer GPUs than it asked for');
    assert.ok(
      record!.jct! >= record!.jctLowerBound - 1e-6,
      `JCT ${record!.jct} < bound ${record!.jctLowerBound}`,
    );
  });

  test('a job alone runs at its rate: JCT = iterations / throughput (+ nothing else)', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]);
    const result = simulate({
      cluster: c,
      jobs: [spec({ id: 'solo', gpus: 4, iterations: 800, submitTime: 10 })],
      policy: getPolicy('fifo'),
      perf: linearPerf({ A100: 2 }),
    });
    const [solo] = result.jobs;
    assert.equal(solo!.outcome, 'completed');
    assert.equal(solo!.jct, 100); // 4 GPUs × 2 it/s = 8 it/s → 800 iterations in 100 s
    assert.equal(solo!.queueing, 0);
    assert.equal(result.makespan, 100);
  });

  test('GPU time is priced at the host instance type’s on-demand price; GPUs not sold on EC2 are counted apart', () => {
    const priced = expandCluster({
      name: 'priced',
      groups: [{ gpuType: 'A100-40GB', hosts: 1, gpusPerHost: 8, instanceType: 'p4d.24xlarge' }],
    });
    const run = simulate({
      cluster: priced,
      jobs: [spec({ id: 'a', gpus: 4, iterations: 800 })],
      policy: getPolicy('fifo'),
      perf: linearPerf({ 'A100-40GB': 2 }),
    });
    const p4d = getInstanceOffering('p4d.24xlarge');
    assert.ok(Math.abs(run.jobs[0]!.cost - (4 * (p4d.onDemandPerHour / 8) * 100) / 3600) < 1e-9);
    assert.equal(run.jobs[0]!.unpricedGpuSeconds, 0);
    const unpriced = simulate({
      cluster: cluster([{ gpuType: 'A40', hosts: 1, gpusPerHost: 4 }]),
      jobs: [spec({ id: 'b', gpus: 2, iterations: 200 })],
      policy: getPolicy('fifo'),
      perf: linearPerf({ A40: 1 }),
    });
    assert.equal(unpriced.jobs[0]!.cost, 0);
    assert.equal(unpriced.jobs[0]!.unpricedGpuSeconds, 200);
  });

  test('a preempted job pays the restart cost and resumes where it stopped', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 1 }]);
    const result = simulate({
      cluster: c,
      jobs: [
        spec({ id: 'long', gpus: 1, iterations: 10_000, submitTime: 0 }),
        spec({ id: 'short', gpus: 1, iterations: 100, submitTime: 500 }),
      ],
      policy: getPolicy('srtf'),
      perf: linearPerf(),
      config: { roundSeconds: 60, restartSeconds: 20 },
    });
    const long = result.jobs.find((j) => j.id === 'long')!;
    const short = result.jobs.find((j) => j.id === 'short')!;
    assert.equal(short.jct, 100);
    assert.equal(long.restarts, 1);
    assert.equal(long.jct, 10_000 + 100 + 20);
  });

  test('jobs that wait forever on an idle cluster are reported as stalled, never hang the simulator', () => {
    // Tiresias keeps a high-skew model (VGG) inside one rack; with one machine per rack, 6 GPUs never fit.
    const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 4, hostsPerRack: 1 }]);
    const jobs = [spec({ id: 'x', gpus: 6, model: 'vgg16' })];
    const stalled = simulate({
      cluster: c,
      jobs,
      policy: getPolicy('tiresias'),
      perf: linearPerf(),
      config: { stallRounds: 5 },
    });
    assert.equal(stalled.jobs[0]!.outcome, 'stalled');
    assert.match(stalled.jobs[0]!.reason!, /waited 5 rounds/);
    // The same job spreads under a network-agnostic policy.
    const spread = simulate({ cluster: c, jobs, policy: getPolicy('gandiva'), perf: linearPerf() });
    assert.equal(spread.jobs[0]!.outcome, 'completed');
  });
});
