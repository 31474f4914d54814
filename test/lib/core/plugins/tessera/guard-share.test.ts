import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, queued } from '../../../../support/fixtures.ts';

// 8 GPUs on two 4-GPU machines, 1 iteration/s per GPU: a job of N iterations on g GPUs takes N ÷ g seconds.
const eight = cluster([{ gpuType: 'v100', hosts: 2, gpusPerHost: 4 }]);

/** Tessera's round at 0 s: GPUs per job (0: none). */
const round = (jobs: readonly JobState[]) => {
  const { plan } = scheduleRound({
    now: 0,
    cluster: eight,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy('tessera'),
    perf: linearPerf(),
  });
  return (id: string) => plan.get(id)?.slices.reduce((n, s) => n + s.gpus.length, 0) ?? 0;
};

/** Eight 1-GPU jobs of `seconds` each, waiting. */
const shorts = (seconds: number) =>
  Array.from({ length: 8 }, (_, i) => queued({ id: `s${i}`, iterations: seconds, packable: false }));

describe("tessera's makespan guard puts a job first only while its GPUs delay the jobs that wait little", () => {
  test('a gang asking half the cluster does not go ahead of short jobs it would delay by more than their median', () => {
    // `gang`: 4 GPUs for 1,000 s. The drain is (4 × 1,000 + 8 × 100) ÷ 8 = 600 s ≤ 1,000 s (the guard's test holds),
    // but its GPUs would serve the waiting jobs 4 × 1,000 ÷ 8 = 500 s, above their median remaining time (100 s):
    // shortest first, the eight short jobs take the eight GPUs and the gang waits.
    const gpus = round([
      queued({ id: 'gang', gpus: 4, iterations: 4 * 1_000, packable: false }),
      ...shorts(100),
    ]);
    assert.equal(gpus('gang'), 0);
    assert.equal([0, 1, 2, 3, 4, 5, 6, 7].filter((i) => gpus(`s${i}`) === 1).length, 8);
  });

  test('a job whose GPUs delay the waiting jobs by at most their median remaining time keeps the guard', () => {
    // `long`: 2 GPUs for 2,000 s. The drain is (2 × 2,000 + 8 × 600) ÷ 8 = 1,100 s ≤ 2,000 s, and its GPUs would serve
    // the waiting jobs 2 × 2,000 ÷ 8 = 500 s, under their median (600 s): it goes first and is admitted (Crius's search
    // may then halve it for a short job, as it may any job admitted this round); shortest first it would wait.
    const gpus = round([
      queued({ id: 'long', gpus: 2, iterations: 2 * 2_000, packable: false }),
      ...shorts(600),
    ]);
    assert.ok(gpus('long') > 0);
  });
});
