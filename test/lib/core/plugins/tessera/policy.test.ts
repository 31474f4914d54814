import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { arrivalOrder } from '../../../../../lib/core/plugins/baselines/fifo.ts';
import { tessera } from '../../../../../lib/core/plugins/tessera/policy.ts';
import { cluster, linearPerf, queued } from '../../../../support/fixtures.ts';

// One 4-GPU machine and three 4-GPU jobs: Crius may halve a Cell, so at most two of them run.
const machine = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 }]);
const jobs = [
  queued({ id: 'long-first', gpus: 4, iterations: 4 * 1_000, submitTime: 0, packable: false }),
  queued({ id: 'short-second', gpus: 4, iterations: 4 * 100, submitTime: 1, packable: false }),
  // Keeps the backlog longer than the long job, so the makespan guard does not put it first.
  queued({ id: 'middle-third', gpus: 4, iterations: 4 * 500, submitTime: 2, packable: false }),
];
const admitted = (policy: Policy) => [
  ...scheduleRound({
    now: 10,
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
});
