import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { countsTotal } from '../../../../../lib/core/plugins/easyscale/counts.ts';
import { estMapping } from '../../../../../lib/core/plugins/easyscale/est-mapping.ts';
import {
  balancedPlan,
  bestPlanWithin,
  incPerf,
  minimalPlan,
  proposals,
} from '../../../../../lib/core/plugins/easyscale/intra-job.ts';
import { jobModel } from './job-model-fixture.ts';

describe('intra-job plans', () => {
  test("the spec's example: 4 ESTs on 1 V100 + 2 P100 → V100 runs 2, each P100 runs 1", () => {
    const job = jobModel({ V100: 2, P100: 1 }, 4);
    const plan = balancedPlan(job, { V100: 1, P100: 2 })!;
    assert.deepEqual(plan.estsPerGpu, { P100: 1, V100: 2 });
    assert.equal(plan.eq1.fOverload, 1);
    assert.equal(plan.eq1.waste, 0);
    assert.equal(plan.rate, 1); // one global step per second = maxP / f_overload mini-batches / maxP
    // Workers in rank order V100, P100, P100: virtual ranks 0–1, 2, 3.
    assert.deepEqual(estMapping(4, ['V100', 'P100', 'P100'], job.capability, plan.estsPerGpu), [
      [0, 1],
      [2],
      [3],
    ]);
  });

  test('balanced plan = the smallest f_overload with Σ N_i·⌊C_i·f⌋ ≥ maxP, even between integer scales', () => {
    // C = 3.1 vs 1 (the artifact's V100 vs T4): 1 V100 + 2 T4 for 9 ESTs. Every T4 needs ≥ 1 EST (f ≥ 1);
    // f = 7/3.1 gives the V100 7 ESTs and each T4 2 (f ≥ 2): nEST = 7 + 4 = 11 ≥ 9 at f = 2.258…; f = 2 gives the
    // V100 ⌊6.2⌋ = 6 and each T4 2: 6 + 4 = 10 ≥ 9 at f = max(6/3.1, 2) = 2, the optimum.
    const job = jobModel({ V100: 3.1, T4: 1 }, 9);
    const plan = balancedPlan(job, { V100: 1, T4: 2 })!;
    assert.equal(plan.eq1.fOverload, 2);
    assert.deepEqual(plan.estsPerGpu, { T4: 2, V100: 6 });
    // No plan on these GPUs is faster: one EST less anywhere breaks nEST ≥ 9 or leaves f at 2.
    for (const [v, t] of [
      [5, 2],
      [7, 1],
    ]) {
      const nEst = v! + 2 * t!;
      const f = Math.max(v! / 3.1, t! / 1);
      assert.ok(nEst < 9 || f >= 2 - 1e-12);
    }
    assert.equal(balancedPlan(job, { V100: 5, T4: 5 }), undefined, 'more GPUs than ESTs');
    assert.equal(balancedPlan(job, { K80: 1 }), undefined, 'a type the job cannot use');
    assert.equal(
      balancedPlan(jobModel({ V100: 3, T4: 1 }, 4, { homogeneous: true }), { V100: 1, T4: 1 }),
      undefined,
    );
  });

  test('the 0.30 waste cut: a mixed plan that is faster but throws away 32.5 % of its GPUs is rejected', () => {
    // C = 1 and 0.51, maxP = 2: alone the fast GPU does 1 mini-batch/s; with the slow one each runs one EST and the
    // step takes 1/0.51 s: 2 × 0.51 = 1.02 mini-batches/s, capacity 1.51, waste 0.49 = 32.5 %.
    const job = jobModel({ V100: 1, T4: 0.51 }, 2);
    const mixed = balancedPlan(job, { V100: 1, T4: 1 })!;
    assert.ok(Math.abs(mixed.eq1.wasteRatio - 0.49 / 1.51) < 1e-9);
    assert.ok(mixed.rate > balancedPlan(job, { V100: 1 })!.rate);
    assert.deepEqual(bestPlanWithin(job, { V100: 1, T4: 1 }, 0.3)!.counts, { V100: 1 });
    assert.deepEqual(bestPlanWithin(job, { V100: 1, T4: 1 }, 0.35)!.counts, { T4: 1, V100: 1 });
  });

  test('role 1 keeps only the GPUs that help: surplus and slow GPUs are given back', () => {
    const job = jobModel({ V100: 10, T4: 1 }, 4);
    // 3 equal GPUs for 4 ESTs are no faster than 2 (2 ESTs each either way).
    assert.deepEqual(bestPlanWithin(job, { V100: 3 })!.counts, { V100: 2 });
    // A T4 forced to one EST would slow the step from 0.4 s to 1 s.
    assert.deepEqual(bestPlanWithin(job, { V100: 1, T4: 3 })!.counts, { V100: 1 });
    // More GPUs than ESTs: the slowest go first.
    assert.deepEqual(bestPlanWithin(job, { V100: 6, T4: 2 })!.counts, { V100: 4 });
    // Communication counts too: spreading over a second type that costs 1 s per step does not pay.
    const costly = jobModel({ V100: 3, T4: 2 }, 4, { sync: (c) => (Object.keys(c).length > 1 ? 1 : 0) });
    assert.deepEqual(bestPlanWithin(costly, { V100: 1, T4: 1 })!.counts, { V100: 1 });
  });

  test('inc_perf = ((speedup_new / speedup_cur) − 1) / added + 1', () => {
    assert.equal(incPerf(1, 2, 1), 2);
    assert.equal(incPerf(2, 3, 2), 1.25);
    assert.throws(() => incPerf(0, 1, 1), /current > 0/);
  });

  test('proposals: best inc_perf per GPU type, at most 2× the GPUs held, ties to more GPUs', () => {
    const job = jobModel({ V100: 1, T4: 0.5 }, 12);
    const current = balancedPlan(job, { V100: 2 })!; // 6 ESTs per GPU, 1/6 step/s
    const submitted = proposals(job, current, { room: { V100: 10, T4: 10 } });
    const v100 = submitted.find((p) => p.gpuType === 'V100')!;
    // +1 V100 → 4 ESTs each (×1.5, inc 1.5); +2 → 3 each (×2, inc 1.5): a tie, so the larger one; +3 would pass 2×.
    assert.equal(v100.added, 2);
    assert.equal(v100.incPerf, 1.5);
    assert.deepEqual(v100.plan.counts, { V100: 4 });
    const t4 = submitted.find((p) => p.gpuType === 'T4')!;
    assert.ok(t4.incPerf < v100.incPerf);
    assert.ok(countsTotal(t4.plan.counts) <= 4);
    // No room, no proposal; a blocked type is skipped.
    assert.equal(proposals(job, current, { room: {} }).length, 0);
    assert.deepEqual(
      proposals(job, current, { room: { V100: 10, T4: 10 }, blocked: new Set(['V100']) }).map(
        (p) => p.gpuType,
      ),
      ['T4'],
    );
    // A homogeneous job only grows on the type it runs on.
    const homo = jobModel({ V100: 1, T4: 0.5 }, 12, { homogeneous: true });
    assert.deepEqual(
      proposals(homo, balancedPlan(homo, { V100: 2 })!, { room: { V100: 10, T4: 10 } }).map((p) => p.gpuType),
      ['V100'],
    );
  });

  test('a proposal may move a job to faster GPUs: adding V100s lets role 1 give the slow T4s back', () => {
    const job = jobModel({ V100: 4, T4: 1 }, 4, {
      sync: (c) => (Object.keys(c).length > 1 ? 10 : 0), // mixing types is hopeless here
    });
    const onT4 = balancedPlan(job, { T4: 2 })!; // 2 ESTs per T4: 0.5 step/s
    const [toV100] = proposals(job, onT4, { room: { V100: 2 } });
    assert.ok(toV100);
    // +1 V100 alone runs 1 step/s (inc 2); +2 V100 run 2 steps/s (inc (4 − 1)/2 + 1 = 2.5), both without the T4s.
    assert.equal(toV100.added, 2);
    assert.equal(toV100.incPerf, 2.5);
    assert.deepEqual(toV100.plan.counts, { V100: 2 });
  });

  test('the minimal plan: minGpus (at least one) of the fastest type with room', () => {
    const job = jobModel({ V100: 2, P100: 1 }, 8);
    assert.deepEqual(minimalPlan(job, { V100: 1, P100: 4 })!.counts, { V100: 1 });
    assert.deepEqual(minimalPlan(job, { P100: 4 })!.counts, { P100: 1 });
    assert.equal(minimalPlan(job, {}), undefined);
    const two = jobModel({ V100: 2, P100: 1 }, 8, { minGpus: 2 });
    assert.deepEqual(minimalPlan(two, { V100: 1, P100: 1 })!.counts, { P100: 1, V100: 1 });
    assert.equal(
      minimalPlan(jobModel({ V100: 2, P100: 1 }, 8, { minGpus: 2, homogeneous: true }), { V100: 1, P100: 1 }),
      undefined,
    );
  });
});
