import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Demand } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { growWhereItPays } from '../../../../../lib/core/plugins/tessera/grow-where-it-pays.ts';
import { cluster, on, running, stageContext } from '../../../../support/fixtures.ts';

// Racks of 2-GPU machines. linearPerf: rate = GPUs × (1 on one machine, 0.8 in one rack, 0.5 across racks), so
// 2 GPUs on one machine run as fast as 4 across two racks (2 = 4 × 0.5) and slower than 4 in one rack (3.2).
const twoRacks = (hostsPerRack: number) =>
  cluster([{ gpuType: 'V100', hosts: 2 * hostsPerRack, gpusPerHost: 2, hostsPerRack }]);

const place = (c: ReturnType<typeof twoRacks>, jobs: JobState[], demands: Map<string, Demand>) => {
  const free = new FreeGpus(c);
  const plan = growWhereItPays(keepThenFit({ strategy: 'consolidated', blocking: false })).place(
    jobs,
    demands,
    free,
    stageContext(c, jobs),
  );
  return { plan, free };
};

const grow = new Map<string, Demand>([['X', { gpuType: 'V100', gpus: 4 }]]);

describe('a running job grows only onto a placement that pays', () => {
  test('growing across racks no faster than it runs now keeps its GPUs (and frees the rest)', () => {
    // One machine per rack: 4 GPUs span both racks; the other job holds no GPUs.
    const c = twoRacks(1);
    const [h0] = c.hosts.map((h) => h.id) as [string];
    const x = running({ id: 'X', gpus: 2, iterations: 1e6 }, on('V100', [h0, [0, 1]]));
    const { plan, free } = place(c, [x], grow);
    assert.deepEqual(plan.get('X'), x.allocation);
    assert.equal(free.freeOf('V100'), 2);
  });

  test('growing within one rack, faster by more than a restart, takes the larger placement', () => {
    const c = twoRacks(2);
    const [h0] = c.hosts.map((h) => h.id) as [string];
    const x = running({ id: 'X', gpus: 2, iterations: 1e6 }, on('V100', [h0, [0, 1]]));
    const { plan } = place(c, [x], grow);
    assert.equal(
      plan.get('X')!.slices.reduce((n, s) => n + s.gpus.length, 0),
      4,
    );
  });

  test('a job near its end does not grow: the restart costs more than the faster placement saves', () => {
    // 10 iterations left: 5 s at rate 2, 3.1 s at rate 3.2; the restart costs 30 s.
    const c = twoRacks(2);
    const [h0] = c.hosts.map((h) => h.id) as [string];
    const x = running({ id: 'X', gpus: 2, iterations: 1e6 }, on('V100', [h0, [0, 1]]), {
      progress: 1e6 - 10,
    });
    const { plan } = place(c, [x], grow);
    assert.deepEqual(plan.get('X'), x.allocation);
  });

  test('an elastic job is left as placed (its GPUs are a claim the elastic tier resizes every round)', () => {
    const c = twoRacks(1);
    const [h0] = c.hosts.map((h) => h.id) as [string];
    const elastic = { maxP: 4, minGpus: 0, heterogeneous: false };
    const x = running({ id: 'X', gpus: 2, iterations: 1e6, elastic }, on('V100', [h0, [0, 1]]));
    const { plan } = place(c, [x], grow);
    assert.equal(
      plan.get('X')!.slices.reduce((n, s) => n + s.gpus.length, 0),
      4,
    );
  });
});
