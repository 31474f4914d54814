import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Policy } from '../../../lib/core/framework/stages.ts';
import type { Cluster } from '../../../lib/core/model/cluster.ts';
import type { JobSpec, JobState } from '../../../lib/core/model/job.ts';
import { allocationGpuKeys } from '../../../lib/core/model/plan.ts';
import { fifoOrder } from '../../../lib/core/plugins/baselines/fifo.ts';
import { gangAllocate } from '../../../lib/core/plugins/baselines/gang.ts';
import { keepThenFit } from '../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { allocationCounts, countsTotal } from '../../../lib/core/plugins/easyscale/counts.ts';
import { elasticAllocate, elasticPlace } from '../../../lib/core/plugins/easyscale/tier.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';

const TYPES = ['A100', 'V100', 'T4'] as const;
const perf = linearPerf({ A100: 2, V100: 1, T4: 0.5 });

const clusterArb = fc
  .array(
    fc.record({
      gpuType: fc.constantFrom(...TYPES),
      hosts: fc.integer({ min: 1, max: 3 }),
      gpusPerHost: fc.constantFrom(1, 2, 4, 8),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((groups) => cluster(groups, 'random'));

const jobsArb = fc
  .array(
    fc.record({
      elastic: fc.boolean(),
      gpus: fc.constantFrom(1, 2, 4, 8),
      iterations: fc.integer({ min: 20, max: 3_000 }),
      submitTime: fc.integer({ min: 0, max: 2_000 }),
      heterogeneous: fc.boolean(),
      gpuTypes: fc.option(fc.constantFrom(['A100'], ['V100'], ['T4', 'V100']), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 16 },
  )
  .map((rows) =>
    rows.map(
      (r, i): JobSpec =>
        spec({
          id: `${r.elastic ? 'e' : 'g'}${i}`,
          gpus: r.gpus,
          batchSize: 8 * r.gpus,
          iterations: r.iterations,
          submitTime: r.submitTime,
          packable: false,
          ...(r.gpuTypes ? { gpuTypes: r.gpuTypes } : {}),
          ...(r.elastic ? { elastic: { maxP: r.gpus, minGpus: 0, heterogeneous: r.heterogeneous } } : {}),
        }),
    ),
  );

/** The elastic tier around a non-blocking gang allocator: a guaranteed job waits only if its GPUs are not there. */
const tiered = (seen: { active: readonly JobState[] }): Policy => {
  const inner = gangAllocate({ blocking: 'none', typeChoice: 'most-free' });
  const place = keepThenFit({ strategy: 'consolidated', blocking: false });
  return {
    name: 'tiered-test',
    description: 'elastic tier around gang(none)',
    order: {
      name: 'fifo-spy',
      order: (jobs, ctx) => {
        seen.active = jobs;
        return fifoOrder.order(jobs, ctx);
      },
    },
    allocate: elasticAllocate(inner),
    place: elasticPlace(place),
  };
};

const gpusOfType = (c: Cluster, type: string): number =>
  c.hosts.filter((h) => h.gpuType === type).reduce((n, h) => n + h.gpuCount, 0);

describe('elastic jobs in the simulator', () => {
  test('at the end of every round no guaranteed job waits for GPUs an elastic job holds; ESTs always partition maxP', () => {
    fc.assert(
      fc.property(clusterArb, jobsArb, (c, jobs) => {
        const seen: { active: readonly JobState[] } = { active: [] };
        const hosts = new Map(c.hosts.map((h) => [h.id, h]));
        const result = simulate({
          cluster: c,
          jobs,
          policy: tiered(seen),
          perf,
          config: { roundSeconds: 30, restartSeconds: 5 },
          onRound: (_, out) => {
            const used = new Set<string>();
            const guaranteedHeld = new Map<string, number>();
            for (const [id, allocation] of out.plan) {
              for (const key of allocationGpuKeys(allocation)) {
                assert.ok(!used.has(key), `GPU ${key} double-booked (${id})`);
                used.add(key);
              }
              const job = jobs.find((j) => j.id === id)!;
              if (job.elastic) {
                const ests = allocation.ests;
                assert.ok(ests, `${id}: elastic allocation without an EST mapping`);
                assert.equal(
                  ests.length,
                  allocationGpuKeys(allocation).length,
                  `${id}: one EST list per GPU`,
                );
                assert.ok(
                  ests.every((r) => r.length >= 1),
                  `${id}: a worker without ESTs`,
                );
                assert.deepEqual(
                  ests.flat().sort((a, b) => a - b),
                  Array.from({ length: job.elastic.maxP }, (_, v) => v),
                  `${id}: ESTs do not partition 0..maxP−1`,
                );
                if (job.elastic.heterogeneous === false) {
                  assert.equal(Object.keys(allocationCounts(allocation, (h) => hosts.get(h))).length, 1);
                }
              } else {
                for (const [type, n] of Object.entries(allocationCounts(allocation, (h) => hosts.get(h)))) {
                  guaranteedHeld.set(type, (guaranteedHeld.get(type) ?? 0) + n);
                }
              }
            }
            const unschedulable = new Set(out.stats.unschedulable.map((u) => u.jobId));
            for (const waiting of seen.active) {
              const g = waiting.spec;
              if (g.elastic || out.plan.has(g.id) || unschedulable.has(g.id)) continue;
              for (const type of TYPES) {
                if (g.gpuTypes && !g.gpuTypes.includes(type)) continue;
                const left = gpusOfType(c, type) - (guaranteedHeld.get(type) ?? 0);
                assert.ok(
                  left < g.gpus,
                  `${g.id} (${g.gpus} GPUs) waits though ${left} ${type} GPUs are not guaranteed`,
                );
              }
            }
          },
        });
        for (const job of result.jobs) {
          const input = jobs.find((j) => j.id === job.id)!;
          if (job.outcome !== 'completed') {
            assert.equal(job.outcome, 'unschedulable', `${job.id}: ${job.outcome} ${job.reason ?? ''}`);
            assert.ok(
              !input.elastic || input.gpuTypes,
              `${job.id}: an elastic job fits on one GPU of any type`,
            );
          } else assert.ok(job.jct! >= job.jctLowerBound - 1e-6, `${job.id} beat its bound`);
        }
        const attained = result.jobs.reduce((s, j) => s + j.gpuSeconds, 0);
        assert.ok(
          Math.abs(attained - result.busyGpuSeconds) <= 1e-6 * Math.max(1, attained),
          'GPU-seconds conserved',
        );
      }),
      { numRuns: 40, seed: 11 },
    );
  });

  test('tessera: elastic jobs run rigid where the order admitted them, elastic (ESTs partitioning maxP) elsewhere; every job ends', () => {
    fc.assert(
      fc.property(clusterArb, jobsArb, (c, jobs) => {
        const result = simulate({
          cluster: c,
          jobs,
          policy: getPolicy('tessera'),
          perf,
          config: { roundSeconds: 30, restartSeconds: 5 },
          onRound: (_, out) => {
            const used = new Set<string>();
            for (const [id, allocation] of out.plan) {
              for (const key of allocationGpuKeys(allocation)) {
                assert.ok(!used.has(key), `GPU ${key} double-booked (${id})`);
                used.add(key);
              }
              const job = jobs.find((j) => j.id === id)!;
              if (!job.elastic || !allocation.ests) continue;
              assert.deepEqual(
                allocation.ests.flat().sort((a, b) => a - b),
                Array.from({ length: job.elastic.maxP }, (_, v) => v),
                `${id}: ESTs do not partition 0..maxP−1`,
              );
            }
          },
        });
        for (const job of result.jobs) {
          assert.ok(
            job.outcome === 'completed' || job.outcome === 'unschedulable',
            `${job.id}: ${job.outcome} ${job.reason ?? ''}`,
          );
        }
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  test('easyscale: guaranteed jobs finish exactly as without the elastic jobs beside them', () => {
    fc.assert(
      fc.property(clusterArb, jobsArb, (c, jobs) => {
        const run = (specs: readonly JobSpec[]) =>
          simulate({
            cluster: c,
            jobs: specs,
            policy: getPolicy('easyscale'),
            perf,
            config: { roundSeconds: 30, restartSeconds: 5 },
          });
        const alone = run(jobs.filter((j) => !j.elastic));
        const beside = run(jobs);
        for (const g of alone.jobs) {
          const same = beside.jobs.find((j) => j.id === g.id)!;
          assert.equal(same.outcome, g.outcome, g.id);
          assert.equal(same.firstStart, g.firstStart, `${g.id} started at another time`);
          assert.equal(same.finishTime, g.finishTime, `${g.id} finished at another time`);
        }
      }),
      { numRuns: 25, seed: 5 },
    );
  });

  test('an elastic job alone doubles its GPUs every round, pays the rescale cost each time, and runs at maxP / f_overload', () => {
    const c = cluster([{ gpuType: 'V100', hosts: 1, gpusPerHost: 4 }]);
    const job = spec({
      id: 'e',
      gpus: 4,
      batchSize: 32,
      iterations: 1000,
      elastic: { maxP: 4, minGpus: 0, heterogeneous: false },
    });
    const result = simulate({
      cluster: c,
      jobs: [job],
      policy: getPolicy('easyscale'),
      perf: linearPerf({ V100: 1 }),
      config: { roundSeconds: 60, restartSeconds: 10 },
    });
    const [e] = result.jobs;
    // 0–60 s on 1 GPU (4 ESTs: 0.25 step/s) = 15 steps; rescale to 2 GPUs, paused to 70 s, 0.5 step/s to 120 s
    // = 25 steps; rescale to 4 GPUs, paused to 130 s, then 1 step/s for the remaining 960 steps.
    assert.equal(e!.restarts, 2);
    assert.ok(Math.abs(e!.jct! - 1090) < 1e-6, `jct ${e!.jct}`);
    assert.equal(countsTotal({ V100: 4 }), 4);
  });
});
