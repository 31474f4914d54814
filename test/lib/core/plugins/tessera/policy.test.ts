import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { levelOf } from '../../../../../lib/core/framework/free-gpus.ts';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { arrivalOrder } from '../../../../../lib/core/plugins/baselines/fifo.ts';
import { tessera } from '../../../../../lib/core/plugins/tessera/policy.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { resolveDataDir } from '../../../../../lib/data/data-dir.ts';
import { loadWorkload } from '../../../../../lib/sim/run.ts';
import { simulate } from '../../../../../lib/sim/simulator.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// One 4-GPU machine and three 4-GPU jobs: Crius may halve a Cell, so at most two of them run.
const machine = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 }]);
const jobs = [
  queued({ id: 'long-first', gpus: 4, iterations: 4 * 1_000, submitTime: 0, packable: false }),
  queued({ id: 'short-second', gpus: 4, iterations: 4 * 100, submitTime: 1, packable: false }),
  // Keeps the backlog longer than the long job, so the makespan guard does not put it first.
  queued({ id: 'middle-third', gpus: 4, iterations: 4 * 500, submitTime: 2, packable: false }),
];
const admitted = (policy: Policy, now = 10) => [
  ...scheduleRound({
    now,
    cluster: machine,
    jobs,
    state: initialSchedulerState(),
    policy,
    perf: linearPerf(),
  }).plan.keys(),
];

describe('tessera', () => {
  test('its order stage alone decides who is admitted: shortest remaining first', () => {
    assert.deepEqual(admitted(tessera).sort(), ['middle-third', 'short-second']);
  });

  test('swapping the order stage for arrival order admits the first arrivals instead', () => {
    assert.deepEqual(admitted({ ...tessera, order: arrivalOrder }).sort(), ['long-first', 'short-second']);
  });

  test('once no job has arrived for the drain time of the backlog, it admits in arrival order', () => {
    // Drain (1,000 + 100 + 500) × 4 ÷ 4 = 1,600 s; the last arrival was at 2 s. Until 1,602 s shortest first.
    assert.deepEqual(admitted(tessera, 1_601).sort(), ['middle-third', 'short-second']);
    assert.deepEqual(admitted(tessera, 1_602).sort(), ['long-first', 'short-second']);
  });

  test('an elastic job earns GPUs by its place in the order: ahead of a guaranteed job it runs as Crius sized it', () => {
    const elastic = { maxP: 4, minGpus: 0, heterogeneous: false };
    const round = scheduleRound({
      now: 10,
      cluster: cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 }]),
      jobs: [
        queued({ id: 'long-guaranteed', gpus: 4, iterations: 4 * 1_000, submitTime: 0, packable: false }),
        queued({
          id: 'short-elastic',
          gpus: 4,
          iterations: 4 * 100,
          submitTime: 1,
          packable: false,
          elastic,
        }),
        queued({ id: 'middle', gpus: 4, iterations: 4 * 500, submitTime: 2, packable: false }),
      ],
      state: initialSchedulerState(),
      policy: tessera,
      perf: linearPerf(),
    });
    const held = round.plan.get('short-elastic');
    assert.ok(held, 'the shortest job, elastic, is admitted first');
    assert.equal(held.ests, undefined, 'admitted in the order, it runs rigid (no EST mapping)');
    assert.ok(!round.plan.has('long-guaranteed'), 'the longer guaranteed job waits behind it');
  });

  test('jobs that grow onto a second machine stay within one rack (the relabelling does not split them)', () => {
    // Two racks of two 4-GPU machines; G and Y each hold one machine of rack 0 and both scale up to 8 GPUs.
    const c = cluster([{ gpuType: 'V100-16GB', hosts: 4, gpusPerHost: 4, hostsPerRack: 2 }]);
    const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];
    const { plan } = scheduleRound({
      now: 10,
      cluster: c,
      jobs: [
        running({ id: 'G', gpus: 4, iterations: 1e6, packable: false }, on('V100-16GB', [h0, [0, 1, 2, 3]])),
        running({ id: 'Y', gpus: 4, iterations: 1e6, packable: false }, on('V100-16GB', [h1, [0, 1, 2, 3]])),
      ],
      state: initialSchedulerState(),
      policy: tessera,
      perf: linearPerf(),
    });
    const hostOf = (id: string) => c.hosts.find((h) => h.id === id);
    for (const id of ['G', 'Y']) {
      assert.equal(plan.get(id)!.slices.length, 2, id);
      assert.equal(levelOf(plan.get(id)!, hostOf), 'rack', id);
    }
  });

  test('nobody waits: the short job keeps the fast type and the long one stays on the slow type (no type swap)', () => {
    // Shortest remaining time on the fastest machine (Gonzalez et al.): giving the fast machine to the long job
    // instead delays the short one and every job that would get the fast GPUs after it. The long job moves up
    // when the short one ends.
    const c = cluster([
      { gpuType: 'A40', hosts: 1, gpusPerHost: 2 },
      { gpuType: 'A10', hosts: 1, gpusPerHost: 2 },
    ]);
    const [fast, slow] = [c.hosts[0]!.id, c.hosts[1]!.id];
    const { plan } = scheduleRound({
      now: 10,
      cluster: c,
      jobs: [
        running({ id: 'S', gpus: 2, iterations: 1_000, packable: false }, on('A40', [fast, [0, 1]])),
        running({ id: 'L', gpus: 2, iterations: 1_000_000, packable: false }, on('A10', [slow, [0, 1]])),
      ],
      state: initialSchedulerState(),
      policy: tessera,
      perf: linearPerf({ A40: 2, A10: 1 }),
    });
    assert.equal(plan.get('S')!.gpuType, 'A40');
    assert.equal(plan.get('L')!.gpuType, 'A10');
  });

  test('a communication-bound job too large for one host runs on the GPUs of one host when that is faster', () => {
    // Tiresias's tf_job.csv: vgg19 on 12 GPUs of 4-GPU hosts spends most of each step in the all-reduce across hosts.
    const w = loadWorkload({
      trace: join(resolveDataDir(), 'tiresias', 'tf_job.csv'),
      cluster: 'tiresias-n32g4',
    });
    const run = (policy: Policy) =>
      simulate({ cluster: w.cluster, jobs: w.jobs, policy, perf: w.perf, truth: w.truth }).jobs[0]!;
    const ours = run(tessera);
    const crius = run(getPolicy('crius'));
    assert.equal(ours.gpuSeconds, 4 * ours.runningSeconds, 'four GPUs, one host');
    assert.equal(ours.commSeconds, 0);
    assert.ok(
      ours.jct! < crius.jct! / 2,
      `tessera ${ours.jct} s vs crius ${crius.jct} s (6–24 GPUs over hosts)`,
    );
  });
});
