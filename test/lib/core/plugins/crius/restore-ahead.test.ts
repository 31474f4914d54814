import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// Three 4-GPU machines of one type; a job's rate is its GPU count (iterations per second): no count is more efficient.
const three = cluster([{ gpuType: 'v100', hosts: 3, gpusPerHost: 4 }]);
const [h0, h1, h2] = three.hosts.map((h) => h.id) as [string, string, string];

/** The round's plan: GPUs per job (0: none). */
const round = (policy: string, jobs: readonly JobState[]) => {
  const { plan } = scheduleRound({
    now: 0,
    cluster: three,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf: linearPerf(),
  });
  const gpus = (id: string) => {
    const a = plan.get(id);
    return a ? a.slices.reduce((n, s) => n + s.gpus.length, 0) : 0;
  };
  return { long: gpus('long'), ahead: gpus('ahead'), ending: gpus('ending'), later: gpus('later') };
};

describe('a running job below its request gets it back before a later job is admitted', () => {
  // `long` holds h2 for 250,000 s (the makespan guard's: it goes first); `ahead` asks for 4 GPUs and holds 2 of h0
  // (admitted at half), 8,000 s left at 2 GPUs; `ending` holds h1 and ends in 10 s; `later` asks for 4 GPUs for
  // 10,000 s and waits. The order: long, then shortest remaining time: ending, ahead, later.
  const jobs = [
    running({ id: 'long', gpus: 4, iterations: 1_000_100, packable: false }, on('v100', [h2, [0, 1, 2, 3]]), {
      progress: 100,
    }),
    running({ id: 'ahead', gpus: 4, iterations: 16_100, packable: false }, on('v100', [h0, [0, 1]]), {
      progress: 100,
    }),
    running({ id: 'ending', gpus: 4, iterations: 140, packable: false }, on('v100', [h1, [0, 1, 2, 3]]), {
      progress: 100,
    }),
    queued({ id: 'later', gpus: 4, iterations: 40_000 }),
  ];

  test('crius (arrival order, no restore) leaves the job ahead at half its request', () => {
    assert.deepEqual(round('crius', jobs), { long: 4, ahead: 2, ending: 2, later: 4 });
  });

  test('tessera gives the job ahead its request first (4,000 s saved against a 30 s restart); the later job waits', () => {
    // Shared at half, `ahead` ends at 8,000 s; restored, at 4,030 s, and `later` starts on h1 when `ending` ends.
    assert.deepEqual(round('tessera', jobs), { long: 4, ahead: 4, ending: 4, later: 0 });
  });
});
