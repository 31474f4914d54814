import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// Two 4-GPU machines of one type; a job's rate is its GPU count (iterations per second).
const two = cluster([{ gpuType: 'v100', hosts: 2, gpusPerHost: 4 }]);
const [h0, h1] = two.hosts.map((h) => h.id) as [string, string];
const perf = linearPerf();
const holding = (id: string, host: string, left: number): JobState =>
  running({ id, gpus: 4, iterations: left + 100, packable: false }, on('v100', [host, [0, 1, 2, 3]]), {
    progress: 100,
  });

/** The round's plan: GPUs per job (0: none). */
const round = (policy: string, jobs: readonly JobState[]) => {
  const { plan } = scheduleRound({
    now: 0,
    cluster: two,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf,
  });
  const gpus = (id: string) => {
    const a = plan.get(id);
    return a ? a.slices.reduce((n, s) => n + s.gpus.length, 0) : 0;
  };
  return { long: gpus('long'), ending: gpus('ending'), arrival: gpus('arrival') };
};

describe('tessera takes GPUs from running jobs for an arrival only where the arrival’s wait costs more', () => {
  // `long` holds 4 GPUs for 400,000 s; `ending` holds the other 4 and ends in 10 s; `arrival` asks for 4 GPUs for
  // 1,000 s. The order puts the arrival before `long`.
  test('an arrival that could wait 10 s for GPUs does not make the long job pay a restart and its run', () => {
    const jobs = [
      holding('long', h0, 1_600_000),
      holding('ending', h1, 40),
      queued({ id: 'arrival', gpus: 4, iterations: 4_000 }),
    ];
    // Crius's search and opportunistic execution take the long job's GPUs (shrink or suspend) at once.
    const crius = round('crius', jobs);
    assert.ok(crius.arrival > 0 && crius.long < 4, JSON.stringify(crius));
    // Taking costs the long job ≥ 1 restart (30 s) plus the progress it loses while the arrival runs (up to 1,000 s);
    // waiting costs the arrival 10 s: it waits, and nobody restarts.
    assert.deepEqual(round('tessera', jobs), { long: 4, ending: 4, arrival: 0 });
  });

  test('an arrival that would wait longer than the take costs the victims still takes the GPUs', () => {
    // `ending` now ends in 50,000 s: waiting costs the arrival 50,000 s, the take costs `long` at most 1,030 s.
    const jobs = [
      holding('long', h0, 1_600_000),
      holding('ending', h1, 200_000),
      queued({ id: 'arrival', gpus: 4, iterations: 4_000 }),
    ];
    const tessera = round('tessera', jobs);
    assert.ok(tessera.arrival > 0 && tessera.long < 4, JSON.stringify(tessera));
  });

  test('an arrival that has already waited longer than the take costs takes the GPUs (it is being overtaken)', () => {
    // As in the first case, but the arrival has waited 5,000 s: what it waited is the evidence of what waiting costs.
    const jobs = [
      holding('long', h0, 1_600_000),
      holding('ending', h1, 40),
      queued({ id: 'arrival', gpus: 4, iterations: 4_000, submitTime: -5_000 }),
    ];
    const tessera = round('tessera', jobs);
    assert.ok(tessera.arrival > 0 && tessera.long < 4, JSON.stringify(tessera));
  });
});
