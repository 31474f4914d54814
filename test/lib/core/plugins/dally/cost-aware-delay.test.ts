import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState, type SchedulerState } from '../../../../../lib/core/model/state.ts';
import { fifoOrder } from '../../../../../lib/core/plugins/baselines/fifo.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { DEFAULT_AUTO_TUNER } from '../../../../../lib/core/plugins/dally/auto-tuner.ts';
import { costAwareDelay } from '../../../../../lib/core/plugins/dally/cost-aware-delay.ts';
import { requestedDemands } from '../../../../../lib/core/plugins/dally/demands.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// Two 4-GPU hosts in two racks (network level between them): a 4-GPU job spread over both runs at half speed.
const twoRacks = cluster([{ gpuType: 'V100-16GB', hosts: 2, gpusPerHost: 4, hostsPerRack: 1 }]);
const policy: Policy = {
  name: 'test-delay',
  description: '',
  order: fifoOrder,
  allocate: requestedDemands,
  place: costAwareDelay(keepThenFit({ strategy: 'consolidated', blocking: false })),
};
// One GPU busy on each host: no machine has 4 free GPUs, 6 GPUs are free across the two.
const blockers = [
  running({ id: 'b0', iterations: 1e9 }, on('V100-16GB', ['g0-h0', [0]])),
  running({ id: 'b1', iterations: 1e9 }, on('V100-16GB', ['g0-h1', [0]])),
];
const round = (
  job: JobState,
  now: number,
  state: SchedulerState = initialSchedulerState(),
  { using = policy, restartSeconds = 30 }: { using?: Policy; restartSeconds?: number } = {},
) =>
  scheduleRound({
    now,
    cluster: twoRacks,
    jobs: [...blockers, job],
    state,
    policy: using,
    perf: linearPerf(),
    config: { roundSeconds: 60, restartSeconds },
  });
// Jobs of 4 GPUs that got one machine recently, after these waits.
const history = (...waits: number[]) => ({
  ...initialSchedulerState(),
  delayTuner: { lists: { 'machine:4': waits.map((waited, i) => ({ at: i, waited })) } },
});

// 4 GPUs at 1 it/s each: 4,000 iterations take 1,000 s on one machine and 2,000 s spread, so holding out saves 1,000 s.
const big = queued({ id: 'big', gpus: 4, iterations: 4_000, submitTime: 0 });

describe('cost-aware delay timers', () => {
  test('with no history a job holds out for one round, not one more round every round', () => {
    assert.equal(round(big, 0).plan.has('big'), false);
    assert.equal(round(big, 60).plan.get('big')?.slices.length, 2);
  });

  test('a job holds out while the jobs of its size that had waited longer got the level within the saving', () => {
    // At 700 s only the 800 s and 950 s waits count (the jobs placed at once say nothing about one still waiting):
    // 875 s expected in all, within the 1,000 s saved.
    assert.equal(round(big, 700, history(0, 0, 800, 950)).plan.has('big'), false);
  });

  test('it stops holding out once no job of its size got the level after waiting as long', () => {
    // Waited 900 s, the longest recorded wait is 800 s: the history does not say the machine will come (the mean of
    // all waits, 350 s, and "one more round" would have held it until 940 s).
    assert.equal(round(big, 900, history(0, 0, 600, 800)).plan.get('big')?.slices.length, 2);
  });

  test('it takes the spread placement once waiting longer would cost more than it saves', () => {
    assert.equal(round(big, 700, history(0, 1_100, 1_200)).plan.get('big')?.slices.length, 2);
  });

  test('a short job never waits: its saving is less than a round', () => {
    const short = queued({ id: 'short', gpus: 4, iterations: 200 });
    assert.equal(round(short, 0).plan.get('short')?.slices.length, 2);
  });

  test('the expected wait is learned: a long history of waits at this size stops the hold-out', () => {
    assert.equal(round(big, 10, history(5_000, 5_000, 5_000)).plan.get('big')?.slices.length, 2);
  });

  // Tessera re-consolidates: a job started spread moves to one machine once one frees, for one restart. Waiting `w`
  // more seconds instead loses w × slow/fast = w / 2 seconds of work at the fast rate.
  const movedLater: Policy = {
    ...policy,
    place: costAwareDelay(keepThenFit({ strategy: 'consolidated', blocking: false }), DEFAULT_AUTO_TUNER, {
      movedWhenFree: true,
    }),
  };
  test('when a later stage moves it once a machine frees, a job holds out only while the wait costs less than the restart', () => {
    // One round (60 s) of waiting loses 30 s of fast work: more than a 20 s restart, less than a 40 s one.
    assert.equal(
      round(big, 0, undefined, { using: movedLater, restartSeconds: 20 }).plan.get('big')?.slices.length,
      2,
    );
    assert.equal(round(big, 0, undefined, { using: movedLater, restartSeconds: 40 }).plan.has('big'), false);
    // Without the move the saving is the whole remaining run's (1,000 s): it holds out even with the short restart.
    assert.equal(round(big, 0, undefined, { restartSeconds: 20 }).plan.has('big'), false);
  });

  test('a start on one machine is recorded for the tuner with the time the job waited', () => {
    const free = scheduleRound({
      now: 300,
      cluster: twoRacks,
      jobs: [big],
      state: initialSchedulerState(),
      policy,
      perf: linearPerf(),
    });
    assert.deepEqual(
      free.state.delayTuner?.lists['machine:4']?.map((s) => s.waited),
      [300],
    );
  });
});
