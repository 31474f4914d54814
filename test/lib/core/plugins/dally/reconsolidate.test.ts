import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Demand } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { reconsolidate } from '../../../../../lib/core/plugins/dally/reconsolidate.ts';
import { cluster, on, running, stageContext } from '../../../../support/fixtures.ts';

// Three 2-GPU machines, each its own rack: a job across two of them runs at half speed (linearPerf, network).
const c = cluster([{ gpuType: 'V100', hosts: 3, gpusPerHost: 2, hostsPerRack: 1 }]);
const [h0, h1, h2] = c.hosts.map((h) => h.id) as [string, string, string];

const place = (jobs: JobState[], demands: Map<string, Demand>) => {
  const ctx = stageContext(c, jobs);
  const stage = reconsolidate(keepThenFit({ strategy: 'consolidated', blocking: false }));
  return stage.place(jobs, demands, new FreeGpus(c), ctx);
};

const spread = (iterations: number, progress: number) =>
  running({ id: 'X', gpus: 2, iterations }, on('V100', [h0, [1]], [h1, [1]]), { progress });
const keep = new Map<string, Demand>([['X', { gpuType: 'V100', gpus: 2 }]]);

describe('re-consolidating running jobs', () => {
  test('a job kept across machines moves onto one machine once it is free and the move saves more than a restart', () => {
    const plan = place([spread(10_000, 0)], keep);
    assert.deepEqual(plan.get('X')!.slices, [{ hostId: h2, gpus: [0, 1] }]);
  });

  test('a job near its end stays where it is (the restart would cost more than the move saves)', () => {
    // 20 iterations left: 20 s at half speed, 10 s on one machine; the restart costs 30 s.
    const plan = place([spread(10_000, 9_980)], keep);
    assert.equal(plan.get('X')!.slices.length, 2);
  });

  test('without two free GPUs on one machine the job stays', () => {
    const others = [h0, h1, h2].map((h, i) => running({ id: `Y${i}`, gpus: 1 }, on('V100', [h, [0]])));
    const demands = new Map<string, Demand>([
      ...keep,
      ...others.map((j) => [j.spec.id, { gpuType: 'V100', gpus: 1 }] as const),
    ]);
    const plan = place([spread(10_000, 0), ...others], demands);
    assert.equal(plan.get('X')!.slices.length, 2);
  });
});
