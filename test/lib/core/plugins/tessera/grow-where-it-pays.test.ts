import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FreeGpus } from '../../../../../lib/core/framework/free-gpus.ts';
import type { Demand } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { PerfModel } from '../../../../../lib/core/model/perf.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { growWhereItPays } from '../../../../../lib/core/plugins/tessera/grow-where-it-pays.ts';
import { cluster, linearPerf, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

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

describe('a job whose growth does not pay, its GPUs given to a job placed before it', () => {
  // A communication-bound model: GPUs on one machine count in full, spread over machines at 0.3 each.
  const commBound: PerfModel = {
    ...linearPerf(),
    throughput: (q) => {
      const rate = q.gpus * (q.shape.level === 'machine' ? 1 : 0.3);
      return { iterationsPerSecond: rate, computeSeconds: 1 / rate, commSeconds: 0, source: 'analytic' };
    },
  };
  const placeAll = (c: ReturnType<typeof cluster>, jobs: JobState[], demands: Map<string, Demand>) => {
    const free = new FreeGpus(c);
    const plan = growWhereItPays(keepThenFit({ strategy: 'consolidated', blocking: false })).place(
      jobs,
      demands,
      free,
      stageContext(c, jobs, commBound),
    );
    return { plan, free };
  };

  test('spread beyond what its Cell assumed, it keeps its GPUs: everyone is placed again with it asking for them', () => {
    // Two racks of two 2-GPU machines. Z holds one GPU of h2, so no rack has 4 free. X holds h0 and is scaled up to
    // 4; Y, first in the order, takes h0 in the first placement, which leaves X 4 GPUs across racks (rate 1.2, below
    // the 2 it has, where its Cell assumed one rack).
    const c = cluster([{ gpuType: 'V100', hosts: 4, gpusPerHost: 2, hostsPerRack: 2 }]);
    const [h0, , h2] = c.hosts.map((h) => h.id) as [string, string, string];
    const z = running({ id: 'Z', gpus: 1, iterations: 1e6 }, on('V100', [h2, [0]]));
    const y = queued({ id: 'Y', gpus: 2, iterations: 1e6 });
    const x = running({ id: 'X', gpus: 2, iterations: 1e6 }, on('V100', [h0, [0, 1]]));
    const { plan } = placeAll(
      c,
      [z, y, x],
      new Map<string, Demand>([
        ['Z', { gpuType: 'V100', gpus: 1 }],
        ['Y', { gpuType: 'V100', gpus: 2 }],
        ['X', { gpuType: 'V100', gpus: 4 }],
      ]),
    );
    assert.deepEqual(plan.get('X'), x.allocation);
    const yHosts = plan.get('Y')!.slices.map((s) => s.hostId);
    assert.equal(yHosts.length, 1, 'Y on one machine');
    assert.notEqual(yHosts[0], h0);
  });

  test('moved to another type as consolidated as the cluster allows, it stays where it was placed', () => {
    // X holds the one A100 machine; the allocation moves it to 4 V100s (2-GPU machines, two per rack) and gives its
    // A100s to Y, first in the order. The raw estimate says 4 V100s in a rack (1.2) are slower than 2 A100s (2), but
    // the type move is the allocation's calibrated choice and the placement consolidated it as far as it can.
    const c = cluster([
      { gpuType: 'A100', hosts: 1, gpusPerHost: 2 },
      { gpuType: 'V100', hosts: 2, gpusPerHost: 2, hostsPerRack: 2 },
    ]);
    const [a0] = c.hosts.map((h) => h.id) as [string];
    const y = queued({ id: 'Y', gpus: 2, iterations: 1e6 });
    const x = running({ id: 'X', gpus: 2, iterations: 1e6 }, on('A100', [a0, [0, 1]]));
    const { plan } = placeAll(
      c,
      [y, x],
      new Map<string, Demand>([
        ['Y', { gpuType: 'A100', gpus: 2 }],
        ['X', { gpuType: 'V100', gpus: 4 }],
      ]),
    );
    assert.equal(plan.get('Y')!.slices[0]!.hostId, a0);
    assert.equal(plan.get('X')!.gpuType, 'V100');
    assert.equal(
      plan.get('X')!.slices.reduce((n, s) => n + s.gpus.length, 0),
      4,
    );
  });
});
