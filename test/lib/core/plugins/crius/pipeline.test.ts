import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  assemblePlans,
  bestPlan,
  type PipelineProblem,
  pipelineLatency,
  planLatency,
} from '../../../../../lib/core/plugins/crius/pipeline.ts';

describe('pipeline latency formula (Crius §5.1)', () => {
  test('a hand-computed case: T_it = Σ T_s + (B − 1)(T_k − Comm_k)', () => {
    // 4 stages, B = 4·N_S = 16 micro-batches. C = [2, 3, 5, 1], Comm_{s−1→s} = [–, 1, 2, 1].
    // T = [2, 4, 7, 2]: Σ = 15; slowest k = 3 (T = 7), its compute 5: 15 + 15 × 5 = 90.
    assert.equal(pipelineLatency([2, 3, 5, 1], [0, 1, 2, 1], 16), 90);
  });

  test('the pacing stage is the one with the largest T_s, and its communication overlaps', () => {
    // T = [4, 5 + 3 = 8]: k = 2 although C_1 = 4 < C_2 = 5 … and (B − 1) × C_2 (not T_2) is added.
    assert.equal(pipelineLatency([4, 5], [0, 3], 8), 4 + 8 + 7 * 5);
    // Here stage 2 has the larger compute but stage 1 the larger T: k = 1.
    assert.equal(pipelineLatency([6, 5], [0, 0.5], 8), 6 + 5.5 + 7 * 6);
  });

  test('one stage: B micro-batches one after another', () => {
    assert.equal(pipelineLatency([3], [0], 4), 12);
  });

  test('the gradient all-reduce is paid once per iteration, the longest stage’s', () => {
    const problem: PipelineProblem = {
      options: [1, 1],
      microBatches: 8,
      compute: () => 1,
      gradSync: (s) => (s === 0 ? 0.5 : 2),
      comm: () => 0,
    };
    assert.equal(planLatency(problem, [0, 0]), 2 + 7 * 1 + 2);
  });
});

const arbitraryProblem = fc
  .record({
    stages: fc.integer({ min: 1, max: 6 }),
    options: fc.integer({ min: 1, max: 3 }),
    microBatchesPerStage: fc.constant(4),
    seed: fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 400, maxLength: 400 }),
    infeasible: fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
  })
  .map(({ stages, options, microBatchesPerStage, seed, infeasible }): PipelineProblem => {
    const at = (i: number) => seed[i % seed.length]!;
    return {
      options: Array.from({ length: stages }, () => options),
      microBatches: microBatchesPerStage * stages,
      compute: (s, o) =>
        infeasible[(s * 3 + o) % 20] && o > 0 ? Number.POSITIVE_INFINITY : 0.1 + at(s * 7 + o),
      gradSync: (s, o) => at(100 + s * 5 + o),
      comm: (s, a, b) => at(200 + s * 11 + a * 3 + b) / 4,
    };
  });

describe('parallelism assembly', () => {
  test('two profiles per stage assemble 2^{N_S} distinct plans', () => {
    for (const stages of [1, 2, 3, 5]) {
      const problem: PipelineProblem = {
        options: Array.from({ length: stages }, () => 2),
        microBatches: 4 * stages,
        compute: (s, o) => 1 + s + o,
        gradSync: () => 0,
        comm: () => 0.1,
      };
      const plans = assemblePlans(problem);
      assert.equal(plans.length, 2 ** stages);
      assert.equal(new Set(plans.map((p) => p.plan.join(''))).size, 2 ** stages);
    }
  });

  test('the exact search finds the fastest assembled plan (property, vs brute force)', () => {
    fc.assert(
      fc.property(arbitraryProblem, (problem) => {
        const plans = assemblePlans(problem).filter((p) => Number.isFinite(p.iterationSeconds));
        const best = bestPlan(problem);
        if (plans.length === 0) return best === undefined;
        const min = Math.min(...plans.map((p) => p.iterationSeconds));
        return (
          best !== undefined &&
          Math.abs(best.iterationSeconds - min) <= 1e-9 * Math.max(1, min) &&
          Math.abs(planLatency(problem, best.plan) - best.iterationSeconds) <= 1e-9 * Math.max(1, min)
        );
      }),
      { numRuns: 300, seed: 42 },
    );
  });

  test('no plan when a stage has no option that fits', () => {
    const problem: PipelineProblem = {
      options: [2, 2],
      microBatches: 8,
      compute: (s) => (s === 1 ? Number.POSITIVE_INFINITY : 1),
      gradSync: () => 0,
      comm: () => 0,
    };
    assert.equal(bestPlan(problem), undefined);
  });
});
