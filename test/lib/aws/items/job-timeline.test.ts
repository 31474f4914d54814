import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendTimeline, placementOf, TIMELINE_LIMIT } from '../../../../lib/aws/items/job-timeline.ts';

test('appending keeps order and only the newest entries', () => {
  let timeline = appendTimeline(undefined, { at: 0, kind: 'submitted' });
  for (let i = 1; i <= TIMELINE_LIMIT + 5; i++)
    timeline = appendTimeline(timeline, { at: i, kind: 'requeued' });
  assert.equal(timeline.length, TIMELINE_LIMIT);
  assert.equal(timeline[0]!.at, 6);
  assert.equal(timeline.at(-1)!.at, TIMELINE_LIMIT + 5);
});

test('an event stamped before the last entry (a round that began before the submit) is stamped at the last entry', () => {
  const submitted = appendTimeline(undefined, { at: 1_764_000_061.345, kind: 'submitted' });
  const started = appendTimeline(submitted, { at: 1_764_000_061.158, kind: 'started', detail: '1 × T4' });
  assert.equal(started[1]!.at, 1_764_000_061.345);
  assert.equal(started[1]!.kind, 'started');
});

test('a placement names its GPUs and hosts', () => {
  assert.deepEqual(
    placementOf({
      gpuType: 'T4',
      slices: [
        { hostId: 'i-1', gpus: [0, 1] },
        { hostId: 'i-2', gpus: [3] },
      ],
    } as never),
    { detail: '3 × T4', hosts: ['i-1', 'i-2'] },
  );
});
