import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../lib/core/framework/stages.ts';
import {
  initialSchedulerState,
  type SchedulerState,
  schedulerStateWith,
} from '../../../../lib/core/model/state.ts';
import { fifoOrder } from '../../../../lib/core/plugins/baselines/fifo.ts';
import { gangAllocate } from '../../../../lib/core/plugins/baselines/gang.ts';
import { keepThenFit } from '../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { cluster, linearPerf, queued } from '../../../support/fixtures.ts';

// `nextState` lets learning stages (Dally's auto-tuner) carry what a round decided into the next one.
describe('stages contribute to the next scheduler state', () => {
  const c = cluster([{ gpuType: 'A100-40GB', hosts: 1, gpusPerHost: 8 }]);
  const place = keepThenFit({ strategy: 'consolidated', blocking: false });
  const seen: string[] = [];
  const policy: Policy = {
    name: 'learning',
    description: '',
    order: {
      ...fifoOrder,
      nextState: (_ordered, _plan, ctx) => {
        seen.push(`order saw ${JSON.stringify(ctx.state.delayTuner ?? null)}`);
        return { ...ctx.state, delayTuner: { lists: { 'machine:1': [{ at: ctx.now, waited: 1 }] } } };
      },
    },
    allocate: gangAllocate({ blocking: 'none', typeChoice: 'most-free' }),
    place: {
      ...place,
      nextState: (ordered, plan, ctx) => {
        seen.push(`place saw ${Object.keys(ctx.state.delayTuner?.lists ?? {}).join(',')}, plan ${plan.size}`);
        const placed = ordered.filter((j) => plan.has(j.spec.id)).length;
        return {
          ...ctx.state,
          delayTuner: { lists: { ...ctx.state.delayTuner!.lists, [`placed:${placed}`]: [] } },
        };
      },
    },
  };

  test('in pipeline order, each seeing the previous update and the final plan; round bookkeeping kept', () => {
    seen.length = 0;
    const input: SchedulerState = schedulerStateWith(initialSchedulerState(), { round: 4 });
    const out = scheduleRound({
      now: 50,
      cluster: c,
      jobs: [queued({ id: 'a', gpus: 2 }), queued({ id: 'b', gpus: 4 })],
      state: input,
      policy,
      perf: linearPerf(),
    });
    assert.deepEqual(seen, ['order saw null', 'place saw machine:1, plan 2']);
    // Every field present (undefined where unset): the round's state has one hidden class (`schedulerStateWith`).
    assert.deepEqual(
      out.state,
      schedulerStateWith(initialSchedulerState(), {
        round: 5,
        lastRoundAt: 50,
        delayTuner: { lists: { 'machine:1': [{ at: 50, waited: 1 }], 'placed:2': [] } },
      }),
    );
    assert.deepEqual(
      input,
      schedulerStateWith(initialSchedulerState(), { round: 4 }),
      'the input state is not mutated',
    );
  });

  test('without contributions the state only advances its round', () => {
    const plain: Policy = { ...policy, order: fifoOrder, place };
    const out = scheduleRound({
      now: 7,
      cluster: c,
      jobs: [],
      state: initialSchedulerState(),
      policy: plain,
      perf: linearPerf(),
    });
    assert.deepEqual(out.state, schedulerStateWith(initialSchedulerState(), { round: 1, lastRoundAt: 7 }));
  });
});
