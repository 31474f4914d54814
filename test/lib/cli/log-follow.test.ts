import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FOLLOW_START, formatLogLine, nextFollowState, noOutputNote } from '../../../lib/cli/log-follow.ts';

const options = { intervalSeconds: 2, drainSeconds: 30 };

test('follow goes on while the job runs, and stops one interval after it ended with its logs drained', () => {
  const running = nextFollowState(
    FOLLOW_START,
    { status: 'running', more: false, drained: true },
    100,
    options,
  );
  assert.equal(running.stop, false);
  const ended = nextFollowState(
    running.state,
    { status: 'finished', more: false, drained: true },
    102,
    options,
  );
  assert.equal(ended.stop, false, 'the first terminal poll may precede the last chunk');
  const again = nextFollowState(
    ended.state,
    { status: 'finished', more: false, drained: true },
    104,
    options,
  );
  assert.equal(again.stop, true);
});

test('a rank whose host died never drains: follow stops after the drain timeout', () => {
  let state = FOLLOW_START;
  const page = { status: 'failed' as const, more: false, drained: false };
  state = nextFollowState(state, page, 100, options).state;
  assert.equal(nextFollowState(state, page, 129, options).stop, false);
  assert.equal(nextFollowState(state, page, 130, options).stop, true);
  assert.equal(
    nextFollowState(state, { ...page, more: true }, 200, options).stop,
    false,
    'lines still waiting',
  );
});

test('several ranks are labelled; stderr lines go to stderr', () => {
  const line = { rank: 2, at: 1, stream: 'stderr' as const, text: 'oops' };
  assert.deepEqual(formatLogLine(line, true), { text: '[rank 2] oops', stderr: true });
  assert.deepEqual(formatLogLine({ ...line, stream: 'stdout' }, false), { text: 'oops', stderr: false });
});

test('an empty answer says why: a queued job has no workers; a rank may not exist; a running job may print later', () => {
  assert.equal(
    noOutputNote('j1', 'queued', undefined),
    'no output from job j1: it is queued, no worker has started yet',
  );
  assert.equal(
    noOutputNote('j1', 'finished', 3),
    'no output from rank 3 of job j1: it is finished; no rank 3, or it printed nothing',
  );
  assert.equal(
    noOutputNote('j1', 'running', undefined),
    'no output from job j1: it is running; its workers printed nothing yet (--follow waits for output)',
  );
});

test('a job that ended before it ever started says no worker ran, not that its workers were silent', () => {
  assert.equal(
    noOutputNote('j1', 'cancelled', undefined, true),
    'no output from job j1: it is cancelled and never started, no worker ran',
  );
  assert.equal(
    noOutputNote('j1', 'failed', 0, true),
    'no output from rank 0 of job j1: it is failed and never started, no worker ran',
  );
});
