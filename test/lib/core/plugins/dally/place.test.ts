import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { levelOf } from '../../../../../lib/core/framework/free-gpus.ts';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Action } from '../../../../../lib/core/model/action.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { PerfModel } from '../../../../../lib/core/model/perf.ts';
import { initialSchedulerState, type SchedulerState } from '../../../../../lib/core/model/state.ts';
import { DEFAULT_AUTO_TUNER } from '../../../../../lib/core/plugins/dally/auto-tuner.ts';
import { dallyPolicy } from '../../../../../lib/core/plugins/dally/policies.ts';
import { autoTimers, fixedTimers, type TimerSource } from '../../../../../lib/core/plugins/dally/timers.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

const HOUR = 3600;
const A100 = 'A100-40GB';
const all8 = [0, 1, 2, 3, 4, 5, 6, 7];
const policyWith = (timers: TimerSource, preemption = true) =>
  dallyPolicy({
    name: 't',
    description: 't',
    timers,
    ...(preemption ? {} : { preemption: false as const }),
  });

const round = (
  c: Cluster,
  jobs: JobState[],
  now: number,
  timers: TimerSource,
  state: SchedulerState = initialSchedulerState(),
  preemption = true,
) =>
  scheduleRound({ now, cluster: c, jobs, state, policy: policyWith(timers, preemption), perf: linearPerf() });

const kinds = (actions: readonly Action[]) =>
  actions.map((a) => `${a.kind} ${'jobId' in a ? a.jobId : ''}${a.kind === 'stop' ? ` ${a.reason}` : ''}`);

describe('delay scheduling with manual timers', () => {
  // 2 racks × 2 hosts × 8 GPUs; busy: h0 (8), h1 4 GPUs, h2 4 GPUs, h3 (8). Free: 4 on h1 + 4 on h2 = network only.
  const c = cluster([{ gpuType: A100, hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
  const busy = [
    running({ id: 'b0', gpus: 8 }, on(A100, ['g0-h0', all8])),
    running({ id: 'b1', gpus: 4 }, on(A100, ['g0-h1', [0, 1, 2, 3]])),
    running({ id: 'b2', gpus: 4 }, on(A100, ['g0-h2', [0, 1, 2, 3]])),
    running({ id: 'b3', gpus: 8 }, on(A100, ['g0-h3', all8])),
  ];
  const waiter = (waitingSince: number) => ({ ...queued({ id: 'w', gpus: 8 }), waitingSince });
  const timers = fixedTimers(HOUR, 2 * HOUR);

  test('rejects the network offer until Tm + Tr has passed, then accepts it', () => {
    for (const [waited, started] of [
      [0, false],
      [HOUR, false],
      [3 * HOUR - 1, false],
      [3 * HOUR, true],
    ] as const) {
      const out = round(c, [...busy, waiter(10 * HOUR - waited)], 10 * HOUR, timers);
      assert.equal(out.plan.has('w'), started, `waited ${waited}`);
      if (started)
        assert.equal(
          levelOf(out.plan.get('w')!, (id) => c.hosts.find((h) => h.id === id)),
          'network',
        );
    }
  });

  test('Dally-noWait takes it at once; Dally-fullyConsolidated never does', () => {
    assert.ok(round(c, [...busy, waiter(10 * HOUR)], 10 * HOUR, fixedTimers(0, 0)).plan.has('w'));
    const full = fixedTimers(Infinity, Infinity);
    assert.ok(!round(c, [...busy, waiter(0)], 1e9, full).plan.has('w'));
  });

  test('a job that does not wait keeps its running neighbours untouched', () => {
    const out = round(c, [...busy, waiter(10 * HOUR)], 10 * HOUR, timers);
    assert.deepEqual(kinds(out.actions), []);
  });
});

describe('offers: most consolidated first', () => {
  test('a machine when one fits, else the rack where the job spans the fewest hosts', () => {
    // 2 racks × 3 hosts. Rack r0: 4 + 4 + 4 free (12, tightest, 3 hosts); rack r1: 8 + 6 + 0 free (14, 2 hosts).
    const c = cluster([{ gpuType: A100, hosts: 6, gpusPerHost: 8, hostsPerRack: 3 }]);
    const busy = [
      running({ id: 'x0', gpus: 4 }, on(A100, ['g0-h0', [0, 1, 2, 3]])),
      running({ id: 'x1', gpus: 4 }, on(A100, ['g0-h1', [0, 1, 2, 3]])),
      running({ id: 'x2', gpus: 4 }, on(A100, ['g0-h2', [0, 1, 2, 3]])),
      running({ id: 'x4', gpus: 2 }, on(A100, ['g0-h4', [0, 1]])),
      running({ id: 'x5', gpus: 8 }, on(A100, ['g0-h5', all8])),
    ];
    const out = round(c, [...busy, queued({ id: 'w', gpus: 12 })], 0, fixedTimers(0, 0), undefined, false);
    const w = out.plan.get('w')!;
    assert.deepEqual(w.slices.map((s) => s.hostId).sort(), ['g0-h3', 'g0-h4']);
    const small = round(c, [...busy, queued({ id: 's', gpus: 6 })], 0, fixedTimers(0, 0), undefined, false);
    assert.deepEqual(
      small.plan.get('s')!.slices.map((s) => s.hostId),
      ['g0-h4'],
    );
  });
});

describe('auto-tuner records at acceptance (nextState)', () => {
  const c = cluster([{ gpuType: A100, hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
  const auto = autoTimers(DEFAULT_AUTO_TUNER);

  test('machine and rack acceptances feed their (level, demand) list with the time waited', () => {
    const jobs = [
      { ...queued({ id: 'm', gpus: 8, submitTime: 0 }), waitingSince: 400 },
      { ...queued({ id: 'r', gpus: 16, submitTime: 1 }), waitingSince: 100 },
    ];
    const out = round(c, jobs, 1000, auto);
    assert.deepEqual(out.state.delayTuner, {
      lists: { 'machine:8': [{ at: 1000, waited: 600 }], 'rack:16': [{ at: 1000, waited: 900 }] },
    });
    assert.equal(out.state.round, 1);
  });

  test('network acceptances, running jobs and jobs left waiting are not recorded', () => {
    // h0, h2 busy; free 8 on h1 (rack r0) and 8 on h3 (rack r1): a 16-GPU job can only span both racks.
    const jobs = [
      running({ id: 'a', gpus: 8 }, on(A100, ['g0-h0', all8])),
      running({ id: 'b', gpus: 8 }, on(A100, ['g0-h2', all8])),
      { ...queued({ id: 'big', gpus: 16 }), waitingSince: 0 },
      { ...queued({ id: 'huge', gpus: 64 }), waitingSince: 0 },
    ];
    const state = {
      ...initialSchedulerState(),
      delayTuner: { lists: { 'rack:16': [{ at: 0, waited: 0 }] } },
    };
    // rack:16 has one sample (0 s): σ = 0, Tr = 0, so `big` accepts the network offer at once — and records nothing.
    const out = round(c, jobs, 100, auto, state);
    assert.ok(out.plan.has('big'));
    assert.ok(!out.plan.has('huge'));
    assert.deepEqual(out.state.delayTuner, { lists: { 'rack:16': [{ at: 0, waited: 0 }] } });
  });

  test('manual timers keep no history', () => {
    const out = round(c, [queued({ id: 'm', gpus: 8 })], 10, fixedTimers(0, 0));
    assert.equal(out.state.delayTuner, undefined);
  });

  test('the learned timers change the next decision', () => {
    // Fully busy but h1 (8 free in rack r0) and h3 4 free: an 8-GPU job gets h1 at once; a 12-GPU job needs two racks.
    const history = {
      ...initialSchedulerState(),
      delayTuner: {
        lists: {
          'rack:12': [
            { at: 0, waited: 1000 },
            { at: 0, waited: 3000 },
          ],
        },
      },
    };
    const jobs = (waited: number) => [
      running({ id: 'a', gpus: 8 }, on(A100, ['g0-h0', all8])),
      running({ id: 'b', gpus: 8 }, on(A100, ['g0-h2', all8])),
      running({ id: 'c', gpus: 4 }, on(A100, ['g0-h3', [0, 1, 2, 3]])),
      { ...queued({ id: 'w', gpus: 12 }), waitingSince: 5000 - waited },
    ];
    // Tr = mean 2000 + 2 × 1414.2 = 4828.4 s.
    assert.ok(!round(c, jobs(4828), 5000, auto, history).plan.has('w'));
    assert.ok(round(c, jobs(4829), 5000, auto, history).plan.has('w'));
  });
});

describe('network-sensitive preemption', () => {
  // One rack, two 8-GPU hosts, both busy. linearPerf: 8 GPUs on a machine run 8 it/s, ideal 0.125 s/iteration,
  // so P = 0.125 × progress / runningSeconds.
  const c = cluster([{ gpuType: A100, hosts: 2, gpusPerHost: 8 }]);
  const fine = (id: string, host: string, since: number, iterations = 100_000) =>
    running({ id, gpus: 8, iterations, submitTime: 0 }, on(A100, [host, all8]), {
      runningSince: since,
      runningSeconds: 3600,
      progress: 28_800, // P = 1
    });
  const slowed = (p: number) => ({
    ...queued({ id: 'w', gpus: 8, iterations: 100_000, submitTime: 5 }),
    status: 'suspended' as const,
    progress: 8 * 1000 * p,
    runningSeconds: 1000,
  });
  const now = 4000;
  const nowait = fixedTimers(0, 0);

  test('a slowed waiter preempts the less-slowed job that has served its quantum', () => {
    const jobs = [fine('v1', 'g0-h0', 0), fine('v2', 'g0-h1', now - 600), slowed(0.2)];
    const out = round(c, jobs, now, nowait);
    assert.deepEqual(kinds(out.actions), ['stop v1 preempted', 'start w']);
    assert.deepEqual(out.plan.get('w')!.slices, [{ hostId: 'g0-h0', gpus: all8 }]);
  });

  test('nobody is preempted within the quantum', () => {
    const jobs = [fine('v1', 'g0-h0', now - 1799), fine('v2', 'g0-h1', now - 600), slowed(0.2)];
    assert.deepEqual(kinds(round(c, jobs, now, nowait).actions), []);
  });

  test('nor by a waiter that is not clearly more slowed (priority gap)', () => {
    const jobs = [fine('v1', 'g0-h0', 0), fine('v2', 'g0-h1', 0), slowed(0.8)];
    assert.deepEqual(kinds(round(c, jobs, now, nowait).actions), []);
    // A fresh job (P = 1) never preempts a job running as estimated.
    const fresh = [fine('v1', 'g0-h0', 0), fine('v2', 'g0-h1', 0), queued({ id: 'new', gpus: 8 })];
    assert.deepEqual(kinds(round(c, fresh, now, nowait).actions), []);
  });

  test('cost guard: a victim about to finish is left alone', () => {
    // 40 iterations left at 8 it/s: the waiter would gain 8 GPUs × 5 s, less than the 16 GPUs × 30 s of restarts.
    const jobs = [fine('v1', 'g0-h0', 0, 28_840), fine('v2', 'g0-h1', 0, 28_840), slowed(0.2)];
    assert.deepEqual(kinds(round(c, jobs, now, nowait).actions), []);
  });

  test('no thrashing: the victim cannot take its GPUs back in the next round', () => {
    const first = round(
      c,
      [fine('v1', 'g0-h0', 0), fine('v2', 'g0-h1', now - 600), slowed(0.2)],
      now,
      nowait,
    );
    const w = running({ id: 'w', gpus: 8, iterations: 100_000, submitTime: 5 }, first.plan.get('w')!, {
      runningSince: now,
      progress: 1600,
      runningSeconds: 1000,
    });
    const v1 = {
      ...fine('v1', 'g0-h0', 0),
      status: 'suspended' as const,
      allocation: undefined,
      runningSince: undefined,
      waitingSince: now,
    };
    const later = now + 2 * HOUR;
    const second = round(c, [w, fine('v2', 'g0-h1', now - 600), v1], later, nowait, first.state);
    assert.deepEqual(kinds(second.actions), []);
  });

  test('preemption off: nothing moves', () => {
    const jobs = [fine('v1', 'g0-h0', 0), fine('v2', 'g0-h1', 0), slowed(0.2)];
    assert.deepEqual(kinds(round(c, jobs, now, nowait, undefined, false).actions), []);
  });
});

describe('slowed running jobs are offered better placements', () => {
  // 2 racks × 2 hosts. `r` runs 4 + 4 across racks (network, 4 it/s instead of 8): P = 0.5 after running as slowed.
  const c = cluster([{ gpuType: A100, hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
  const spread = (iterations: number) =>
    running({ id: 'r', gpus: 8, iterations }, on(A100, ['g0-h0', [0, 1, 2, 3]], ['g0-h2', [0, 1, 2, 3]]), {
      progress: 400,
      runningSeconds: 100,
    });

  test('moves to a free machine when the saved communication pays for the restart', () => {
    // 1,000 iterations left × (0.25 − 0.125) s × 8 GPUs = 1,000 GPU-s saved > 8 GPUs × 30 s.
    const out = round(c, [spread(1400)], 3600, fixedTimers(0, 0));
    assert.deepEqual(kinds(out.actions), ['migrate r']);
    assert.equal(out.plan.get('r')!.slices.length, 1);
  });

  test('stays when the job is nearly done', () => {
    // 100 iterations left: 100 GPU-s saved < 240 GPU-s of restart.
    assert.deepEqual(kinds(round(c, [spread(500)], 3600, fixedTimers(0, 0)).actions), []);
  });

  test('preempts a clearly less-slowed job to get a better placement', () => {
    // Every host is partly busy; u (slowed, P ≈ 0.07) is not a victim, the others (P = 1) are. Freeing y's 4 GPUs
    // gives r all of h0 (one victim; z on h2 would do as well, h0 comes first).
    const busy = [
      running({ id: 'u', gpus: 4, iterations: 100_000 }, on(A100, ['g0-h1', [4, 5, 6, 7]]), {
        progress: 1000,
        runningSeconds: 3600,
      }),
      running({ id: 'v', gpus: 4, iterations: 100_000 }, on(A100, ['g0-h1', [0, 1, 2, 3]])),
      running({ id: 'y', gpus: 4, iterations: 100_000 }, on(A100, ['g0-h0', [4, 5, 6, 7]])),
      running({ id: 'z', gpus: 4, iterations: 100_000 }, on(A100, ['g0-h2', [4, 5, 6, 7]])),
      running({ id: 'q', gpus: 8, iterations: 100_000 }, on(A100, ['g0-h3', all8])),
    ];
    const out = round(c, [spread(100_000), ...busy], 3600, fixedTimers(0, 0));
    assert.deepEqual(kinds(out.actions), ['stop y preempted', 'migrate r']);
    assert.deepEqual(out.plan.get('r')!.slices, [{ hostId: 'g0-h0', gpus: all8 }]);
    // Within the quantum y and z stay, and no free placement beats r's: nothing happens.
    assert.deepEqual(kinds(round(c, [spread(100_000), ...busy], 1799, fixedTimers(0, 0)).actions), []);
  });

  test('moves to fewer hosts at the same level when that is faster', () => {
    // 2 racks × 3 hosts; rack r1 is full. r3 spans h0, h1, h2 (4 + 2 + 2); without it h1 and h2 have 6 free each,
    // so two hosts of the same rack hold it. A model where every extra host costs 10 % makes that worth a move.
    const c3 = cluster([{ gpuType: A100, hosts: 6, gpusPerHost: 8, hostsPerRack: 3 }]);
    const base = linearPerf();
    const perHost: PerfModel = {
      ...base,
      throughput: (q) => {
        const t = base.throughput(q);
        const rate = t.iterationsPerSecond / (1 + 0.1 * (q.shape.hosts - 1));
        return { ...t, iterationsPerSecond: rate, computeSeconds: 1 / rate };
      },
    };
    const jobs = [
      running(
        { id: 'r3', gpus: 8, iterations: 100_000 },
        on(A100, ['g0-h0', [0, 1, 2, 3]], ['g0-h1', [0, 1]], ['g0-h2', [0, 1]]),
      ),
      running({ id: 'a', gpus: 4 }, on(A100, ['g0-h0', [4, 5, 6, 7]])),
      running({ id: 'b', gpus: 2 }, on(A100, ['g0-h1', [2, 3]])),
      running({ id: 'd', gpus: 2 }, on(A100, ['g0-h2', [2, 3]])),
      ...['h3', 'h4', 'h5'].map((h) => running({ id: h, gpus: 8 }, on(A100, [`g0-${h}`, all8]))),
    ];
    const out = scheduleRound({
      now: 3600,
      cluster: c3,
      jobs,
      state: initialSchedulerState(),
      policy: policyWith(fixedTimers(0, 0)),
      perf: perHost,
    });
    assert.deepEqual(kinds(out.actions), ['migrate r3']);
    assert.deepEqual(
      out.plan
        .get('r3')!
        .slices.map((s) => s.hostId)
        .sort(),
      ['g0-h1', 'g0-h2'],
    );
    // With the level-only linear model the move saves nothing and is not made.
    assert.deepEqual(kinds(round(c3, jobs, 3600, fixedTimers(0, 0)).actions), []);
  });

  test('a job already as consolidated as its size allows is left alone', () => {
    const c2 = cluster([{ gpuType: A100, hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
    const wide = running({ id: 'wide', gpus: 16 }, on(A100, ['g0-h0', all8], ['g0-h1', all8]), {
      progress: 10,
      runningSeconds: 1000,
    });
    assert.deepEqual(kinds(round(c2, [wide], 3600, fixedTimers(0, 0)).actions), []);
  });
});
