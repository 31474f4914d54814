import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Policy } from '../../../lib/core/framework/stages.ts';
import type { JobSpec } from '../../../lib/core/model/job.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { lengthMultiplier } from '../../../lib/sim/length-noise.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';

describe('length noise: true job lengths differ from the declared iterations', () => {
  test('multipliers are log-uniform in [1/f, f], a pure function of (seed, job id)', () => {
    const draws = Array.from({ length: 2_000 }, (_, i) => lengthMultiplier(7, `j${i}`, 2));
    assert.ok(draws.every((m) => m >= 0.5 && m <= 2));
    const logs = draws.map(Math.log2);
    const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
    assert.ok(Math.abs(mean) < 0.05, `log2 mean ${mean}`);
    // Uniform in log space: a quarter of the draws in each quarter of [-1, 1].
    for (const [lo, hi] of [
      [-1, -0.5],
      [-0.5, 0],
      [0, 0.5],
      [0.5, 1],
    ] as const) {
      const share = logs.filter((x) => x >= lo && x < hi).length / logs.length;
      assert.ok(Math.abs(share - 0.25) < 0.04, `share in [${lo}, ${hi}): ${share}`);
    }
    assert.equal(lengthMultiplier(7, 'j1', 2), lengthMultiplier(7, 'j1', 2));
    assert.notEqual(lengthMultiplier(7, 'j1', 2), lengthMultiplier(8, 'j1', 2));
    assert.equal(lengthMultiplier(7, 'j1', 1), 1);
  });

  const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]);
  const jobs: JobSpec[] = Array.from({ length: 6 }, (_, i) =>
    spec({ id: `n${i}`, gpus: 1, iterations: 1_000 * (i + 1), submitTime: 0 }),
  );
  /** fifo, recording the iterations every job shows the scheduler in every round. */
  const observed = (): { policy: Policy; seen: Map<string, Set<number>> } => {
    const fifo = getPolicy('fifo');
    const seen = new Map<string, Set<number>>();
    const policy: Policy = {
      ...fifo,
      order: {
        name: fifo.order.name,
        order: (active, ctx) => {
          for (const j of active) {
            const set = seen.get(j.spec.id) ?? new Set<number>();
            set.add(j.spec.iterations);
            seen.set(j.spec.id, set);
            assert.ok(j.progress < j.spec.iterations, `${j.spec.id} shows progress past its declared length`);
          }
          return fifo.order.order(active, ctx);
        },
      },
    };
    return { policy, seen };
  };
  const run = (lengthNoise: number, seed: number) => {
    const { policy, seen } = observed();
    const result = simulate({
      cluster: c,
      jobs,
      policy,
      perf: linearPerf({ A100: 2 }),
      config: { lengthNoise, seed },
    });
    return { result, seen };
  };

  test('each job runs its declared iterations × its multiplier; the policy only ever sees the declared ones', () => {
    const { result, seen } = run(2, 3);
    for (const job of jobs) {
      const rec = result.jobs.find((j) => j.id === job.id)!;
      assert.equal(rec.outcome, 'completed');
      // Alone on one A100 at 2 it/s (8 GPUs, 6 one-GPU jobs: nobody waits).
      const expected = (job.iterations * lengthMultiplier(3, job.id, 2)) / 2;
      assert.ok(Math.abs(rec.jct! - expected) < 1e-6 * expected, `${job.id}: ${rec.jct} vs ${expected}`);
      assert.deepEqual([...seen.get(job.id)!], [job.iterations]);
    }
    const plain = run(1, 3).result;
    assert.ok(
      plain.jobs.some((p) => Math.abs(p.jct! - result.jobs.find((j) => j.id === p.id)!.jct!) > 1),
      'noise changes the actual work',
    );
  });

  test('deterministic per seed; another seed draws other lengths', () => {
    const jct = (seed: number) => run(2, seed).result.jobs.map((j) => j.jct);
    assert.deepEqual(jct(5), jct(5));
    assert.notDeepEqual(jct(5), jct(6));
  });
});
