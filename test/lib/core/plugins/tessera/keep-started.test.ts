import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// One 4-GPU machine and 1-GPU jobs (no Cell to shrink to): a job of N iterations takes N seconds.
const machine = cluster([{ gpuType: 'v100', hosts: 1, gpusPerHost: 4 }]);
const host = machine.hosts[0]!.id;
const one = (id: string, seconds: number, submitTime: number): JobState =>
  queued({ id, iterations: seconds, submitTime, packable: false });
const holding = (id: string, gpu: number, seconds: number, since: number, priority = 0): JobState =>
  running(
    { id, iterations: seconds + 100, submitTime: since, packable: false, priority },
    on('v100', [host, [gpu]]),
    {
      progress: 100,
      runningSince: since,
    },
  );

/** The round at 1,000 s under tessera: GPUs per job (0: none). */
const round = (jobs: readonly JobState[]) => {
  const { plan } = scheduleRound({
    now: 1_000,
    cluster: machine,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy('tessera'),
    perf: linearPerf(),
  });
  const gpus = (id: string) => plan.get(id)?.slices.reduce((n, s) => n + s.gpus.length, 0) ?? 0;
  return { long: gpus('long'), short: gpus('short') };
};

describe('tessera keeps a running job the makespan guard covered when it started', () => {
  // `long` started at 0 with 2,000 s left, alone: its remaining time was the whole backlog's drain (it was guarded).
  // Three 50,000 s jobs arrived at 5 and hold the other GPUs; their higher priority keeps them from being suspended
  // for the arrivals (on 4 GPUs their GPU-seconds ÷ 4 are far above the waiting jobs' median, so the makespan guard
  // does not put them first, `guard-share.ts`). At 900 s `short` (400 s) arrives with others; the drain is now
  // ~40,000 s, so the guard no longer covers `long`, SRTF puts `short` ahead of it, and the take pays (`short` would
  // wait 2,000 s for a GPU; suspending `long` costs it a restart and 400 s).
  const started = [
    holding('long', 0, 2_000, 0),
    holding('huge1', 1, 50_000, 5, 1),
    holding('huge2', 2, 50_000, 5, 1),
    holding('huge3', 3, 50_000, 5, 1),
  ];

  test('an arrival shorter than it does not take its GPU while its GPU delays the later arrivals little', () => {
    // Its GPU serves the later arrivals 2,000 s ÷ 4 GPUs = 500 s, under their median remaining time (3,000 s).
    const later = [
      one('short', 400, 900),
      one('w1', 3_000, 900),
      one('w2', 3_000, 900),
      one('w3', 3_000, 900),
    ];
    assert.deepEqual(round([...started, ...later]), { long: 1, short: 0 });
  });

  test('it still yields when its GPU would delay the later arrivals more than their median remaining time', () => {
    // The later arrivals that wait are `short` (400 s) and a 500 s job: median 400 s < 500 s.
    const later = [one('short', 400, 900), one('w1', 500, 900)];
    assert.deepEqual(round([...started, ...later]), { long: 0, short: 1 });
  });
});
