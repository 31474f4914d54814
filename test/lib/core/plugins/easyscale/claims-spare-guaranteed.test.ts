import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Demand } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { allocateSparingGuaranteed } from '../../../../../lib/core/plugins/easyscale/claims-spare-guaranteed.ts';
import { isElasticJob, withElasticTier } from '../../../../../lib/core/plugins/easyscale/tier.ts';
import { tessera, tesseraGuaranteedStages } from '../../../../../lib/core/plugins/tessera/policy.ts';
import { simulate } from '../../../../../lib/sim/simulator.ts';
import {
  cluster,
  linearPerf,
  on,
  queued,
  running,
  spec,
  stageContext,
} from '../../../../support/fixtures.ts';

const elastic = { maxP: 8, minGpus: 0, heterogeneous: false };
const gpus8 = cluster([{ gpuType: 'v100', hosts: 2, gpusPerHost: 4 }]);
const [h0, h1] = gpus8.hosts.map((h) => h.id) as [string, string];
// A guaranteed job and a claim (an elastic job running rigid) on one machine each; a short guaranteed job arrives.
const guaranteed = running({ id: 'g', gpus: 4 }, on('v100', [h0, [0, 1, 2, 3]]));
const claim = running({ id: 'e', gpus: 4, elastic }, on('v100', [h1, [0, 1, 2, 3]]));
const arrival = queued({ id: 'new', gpus: 4 });
const fresh = queued({ id: 'f', gpus: 2, elastic });
const d = (gpus: number): Demand => ({ gpuType: 'v100', gpus });

/**
 * The inner allocation, as Crius decides it in the churn seen on the mixes: the arrival takes the claim's machine and
 * the displaced claim wins half of the guaranteed job's machine back; without the claim the guaranteed job keeps it.
 */
const innerAllocate = (jobs: readonly JobState[]): Map<string, Demand> => {
  const ids = new Set(jobs.map((j) => j.spec.id));
  const out = new Map<string, Demand>([['new', d(4)]]);
  if (ids.has('e')) out.set('e', d(2)).set('g', d(2));
  else out.set('g', d(4));
  if (ids.has('f') && !ids.has('e')) out.set('f', d(2)).set('g', d(2));
  return out;
};

describe('a claim that lost its slot does not shrink guaranteed holders to win GPUs back', () => {
  test('the allocation without the displaced claim stands when it leaves the guaranteed job its GPUs', () => {
    const jobs = [arrival, claim, guaranteed];
    const ctx = stageContext(gpus8, jobs);
    const got = allocateSparingGuaranteed(innerAllocate, jobs, jobs, ctx, isElasticJob);
    assert.deepEqual(got.get('g'), d(4));
    assert.equal(got.has('e'), false, 'the displaced claim runs elastic on idle GPUs instead');
  });

  test('the first allocation stands when leaving the displaced claim out spares no guaranteed job', () => {
    const jobs = [arrival, fresh, claim, guaranteed];
    const ctx = stageContext(gpus8, jobs);
    // Without the displaced claim the fresh claim (still competing in the order) shrinks the guaranteed job alike.
    const got = allocateSparingGuaranteed(innerAllocate, jobs, jobs, ctx, isElasticJob);
    assert.deepEqual(got.get('e'), d(2));
    assert.deepEqual(got.get('g'), d(2));
  });

  test('an allocation that takes no guaranteed GPUs is made once', () => {
    const jobs = [claim, guaranteed];
    const ctx = stageContext(gpus8, jobs);
    let calls = 0;
    const keepAll = (): Map<string, Demand> => {
      calls++;
      return new Map([
        ['e', d(4)],
        ['g', d(4)],
      ]);
    };
    allocateSparingGuaranteed(keepAll, jobs, jobs, ctx, isElasticJob);
    assert.equal(calls, 1);
  });
});

describe('in tessera, through the simulator', () => {
  // G holds one machine, the claim E the other; the short N arrives at t = 100 and, first in SRTF's order, takes E's
  // machine. Which GPUs each job holds in that round, with the rule (tessera) and without it.
  const jobs = [
    spec({ id: 'G', gpus: 4, iterations: 40_000, submitTime: 0 }),
    spec({ id: 'E', gpus: 4, iterations: 12_000, submitTime: 10, elastic }),
    spec({ id: 'N', gpus: 4, iterations: 2_400, submitTime: 100 }),
  ];
  const countsAt = (policy: typeof tessera, at: number): Record<string, number> => {
    let counts: Record<string, number> = {};
    simulate({
      cluster: gpus8,
      jobs,
      policy,
      perf: linearPerf(),
      config: { roundSeconds: 60, restartSeconds: 30, seed: 0 },
      onRound: (now, out) => {
        if (now !== at) return;
        counts = {};
        for (const [id, a] of out.plan) counts[id] = a.slices.reduce((n, s) => n + s.gpus.length, 0);
      },
    });
    return counts;
  };

  test('the arrival takes the claim machine and the guaranteed job keeps all of its GPUs', () => {
    assert.deepEqual(countsAt(tessera, 100), { G: 4, N: 4 });
  });

  test('without the rule the displaced claim wins half of the guaranteed job back in that round', () => {
    const withoutRule = {
      ...tessera,
      ...withElasticTier(tesseraGuaranteedStages, { homogeneousOnly: false, claims: true }),
    };
    assert.deepEqual(countsAt(withoutRule, 100), { G: 2, N: 4, E: 2 });
  });
});
