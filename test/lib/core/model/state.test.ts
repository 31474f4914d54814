import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { initialSchedulerState, schedulerStateWith } from '../../../../lib/core/model/state.ts';

const FIELDS = [
  'round',
  'lastRoundAt',
  'delayTuner',
  'elastic',
  'cellCalibration',
  'typeTrials',
  'triedCells',
];

describe('schedulerStateWith: the state with changes applied, every field present in one order', () => {
  test('the initial state has every field, only round set', () => {
    const s = initialSchedulerState();
    assert.deepEqual(Object.keys(s), FIELDS);
    assert.equal(s.round, 0);
    assert.equal(JSON.stringify(s), '{"round":0}');
  });

  test('changes what it is given (undefined clears), keeps the rest, never mutates its input', () => {
    const trials = { jobs: {} };
    const a = schedulerStateWith(initialSchedulerState(), { round: 3, lastRoundAt: 9, typeTrials: trials });
    const b = schedulerStateWith(a, { round: 4 });
    assert.deepEqual(Object.keys(b), FIELDS);
    assert.deepEqual([b.round, b.lastRoundAt, b.typeTrials], [4, 9, trials]);
    const c = schedulerStateWith(b, { typeTrials: undefined });
    assert.deepEqual([c.round, c.lastRoundAt, c.typeTrials], [4, 9, undefined]);
    assert.equal(b.typeTrials, trials);
    // A literal state (as the AWS shell reads one) comes out in the same order.
    assert.deepEqual(
      Object.keys(schedulerStateWith({ round: 1, typeTrials: trials, lastRoundAt: 2 }, {})),
      FIELDS,
    );
  });
});
