import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import { getPolicy, policyNames } from '../../../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../../../lib/data/perf.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, spec } from '../../support/fixtures.ts';

/**
 * Issue 11: a job with zero throughput on every allocation it may get (it does not fit in memory) must end
 * `unschedulable` with its reason, in every policy, and never hold a GPU; a job that only some sizes run (A3C,
 * CycleGAN on several GPUs) is either resized by the policy or unschedulable — never parked on GPUs at rate 0.
 * The real perf model decides what fits, as in `tessera sim`.
 */
const perf = loadDefaultPerfModel({ onWarning: () => {} });

const clusterArb = fc
  .array(
    fc.record({
      gpuType: fc.constantFrom('A100', 'V100', 'T4'),
      hosts: fc.integer({ min: 1, max: 3 }),
      gpusPerHost: fc.constantFrom(2, 4, 8),
    }),
    { minLength: 1, maxLength: 2 },
  )
  .map((groups) => cluster(groups, 'random'));

/** Fits nowhere at any count: BERT-large at a global batch of 200,000. */
const stuck = (id: string, gpus: number, submitTime: number): JobSpec =>
  spec({ id, model: 'bert-large', batchSize: 200_000, gpus, iterations: 500, submitTime });

const jobsArb = fc
  .array(
    fc.record({
      kind: fc.constantFrom('ok', 'ok', 'stuck', 'a3c', 'cyclegan'),
      gpus: fc.constantFrom(1, 2, 4, 8),
      iterations: fc.integer({ min: 50, max: 3_000 }),
      submitTime: fc.integer({ min: 0, max: 600 }),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((rows) =>
    rows.map((r, i): JobSpec => {
      const id = `${r.kind}${i}`;
      if (r.kind === 'stuck') return stuck(id, r.gpus, r.submitTime);
      const model =
        r.kind === 'ok' ? { model: 'resnet50', batchSize: 32 * r.gpus } : { model: r.kind, batchSize: 8 };
      return spec({ id, ...model, gpus: r.gpus, iterations: r.iterations, submitTime: r.submitTime });
    }),
  );

describe('jobs that can never progress (every policy)', () => {
  test('never hold a GPU, end unschedulable with a reason; no job runs at rate 0; utilisation ignores them', () => {
    fc.assert(
      fc.property(clusterArb, jobsArb, (c, jobs) => {
        for (const name of policyNames()) {
          const stuckIds = new Set(jobs.filter((j) => j.id.startsWith('stuck')).map((j) => j.id));
          const result = simulate({
            cluster: c,
            jobs,
            policy: getPolicy(name),
            perf,
            config: { roundSeconds: 60, restartSeconds: 5, horizonSeconds: 30 * 86_400 },
            onRound: (now, out) => {
              for (const id of out.plan.keys())
                assert.ok(!stuckIds.has(id), `${name}: ${id} holds GPUs at ${now}`);
            },
            onRates: (now, running) => {
              for (const r of running)
                assert.ok(r.rate > 0, `${name}: ${r.jobId} holds GPUs at rate 0 at ${now}`);
            },
          });
          for (const job of result.jobs) {
            assert.ok(
              job.outcome === 'completed' || (job.outcome === 'unschedulable' && (job.reason ?? '') !== ''),
              `${name}: ${job.id} ended ${job.outcome} ${job.reason ?? ''}`,
            );
            if (!stuckIds.has(job.id)) continue;
            assert.equal(job.outcome, 'unschedulable', `${name}: ${job.id}`);
            assert.equal(job.firstStart, undefined, `${name}: ${job.id} started`);
            assert.equal(job.gpuSeconds, 0, `${name}: ${job.id} held GPUs`);
          }
          // Busy GPU-seconds are all held by other jobs (packed partners each count their shared GPUs).
          const others = result.jobs.filter((j) => !stuckIds.has(j.id)).reduce((s, j) => s + j.gpuSeconds, 0);
          assert.ok(
            result.busyGpuSeconds <= others * (1 + 1e-9) + 1e-6,
            `${name}: busy GPU-s beyond other jobs'`,
          );
        }
      }),
      { numRuns: 30, seed: 11 },
    );
  });

  test('BERT-large at batch 360 on 6 T4s (out of memory at every size the cluster allows) in every policy', () => {
    const t4 = cluster([{ gpuType: 'T4', hosts: 2, gpusPerHost: 4 }]);
    const jobs = [
      spec({ id: 'bert', model: 'bert-large', batchSize: 360, gpus: 6, iterations: 1_000 }),
      spec({ id: 'small', model: 'resnet50', batchSize: 32, gpus: 1, iterations: 1_000 }),
    ];
    for (const name of policyNames()) {
      const result = simulate({ cluster: t4, jobs, policy: getPolicy(name), perf });
      const bert = result.jobs.find((j) => j.id === 'bert')!;
      assert.equal(bert.outcome, 'unschedulable', name);
      assert.match(bert.reason ?? '', /bert-large \(batch 360\)/, name);
      assert.equal(bert.gpuSeconds, 0, name);
      assert.equal(result.jobs.find((j) => j.id === 'small')!.outcome, 'completed', name);
    }
  });
});
