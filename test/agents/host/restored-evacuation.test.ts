import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withoutStaleEvacuation } from '../../../agents/host/restored-evacuation.ts';

const state = (reason: 'spot' | 'shutdown', deadline: number) => ({
  appliedGeneration: 3,
  evacuation: { reason, startedAt: 0, deadline, jobIds: ['j'] },
  jobs: [],
});

test('a shutdown evacuation or one past its deadline is cleared on restore; a live Spot one goes on', () => {
  assert.equal(withoutStaleEvacuation(state('shutdown', 99_999), 1_000).state.evacuation, null);
  assert.equal(withoutStaleEvacuation(state('spot', 500), 1_000).state.evacuation, null);
  const live = withoutStaleEvacuation(state('spot', 5_000), 1_000);
  assert.deepEqual([live.cleared, live.state.evacuation?.reason], [null, 'spot']);
  assert.equal(withoutStaleEvacuation(state('shutdown', 1), 1_000).cleared?.reason, 'shutdown');
});
