import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState, type SchedulerState } from '../../../../../lib/core/model/state.ts';
import { fifoOrder } from '../../../../../lib/core/plugins/baselines/fifo.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
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
const round = (job: JobState, now: number, state: SchedulerState = initialSchedulerState()) =>
  scheduleRound({
    now,
    cluster: twoRacks,
    jobs: [...blockers, job],
    state,
    policy,
    perf: linearPerf(),
    config: { roundSeconds: 60 },
  });

// 4 GPUs at 1 it/s each: 4,000 iterations take 1,000 s on one machine and 2,000 s spread, so holding out saves 1,000 s.
const big = queued({ id: 'big', gpus: 4, iterations: 4_000, submitTime: 0 });

describe('cost-aware delay timers', () => {
  test('a job holds out for one machine while its wait fits in the communication time it saves', () => {
    assert.equal(round(big, 0).plan.has('big'), false);
    assert.equal(round(big, 900).plan.has('big'), false);
  });

  test('it takes the spread placement once waiting longer would cost more than it saves', () => {
    const out = round(big, 950);
    assert.equal(out.plan.get('big')?.slices.length, 2);
  });

  test('a short job never waits: its saving is less than a round', () => {
    const short = queued({ id: 'short', gpus: 4, iterations: 200 });
    assert.equal(round(short, 0).plan.get('short')?.slices.length, 2);
  });

  test('the expected wait is learned: a long history of waits at this size stops the hold-out', () => {
    const lists = { 'machine:4': Array.from({ length: 5 }, (_, i) => ({ at: i, waited: 5_000 })) };
    const state = { ...initialSchedulerState(), delayTuner: { lists } };
    assert.equal(round(big, 10, state).plan.get('big')?.slices.length, 2);
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
