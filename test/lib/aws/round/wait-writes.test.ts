import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { waitWrites } from '../../../../lib/aws/round/wait-writes.ts';
import type { WaitInfo } from '../../../../lib/core/framework/wait-info.ts';
import { jobItem } from '../support/items.ts';

const info = (queuePosition: number, estimatedStart?: number, waitReason = 'r'): WaitInfo => ({
  queuePosition,
  waitReason,
  ...(estimatedStart !== undefined ? { estimatedStart } : {}),
});

describe('waitWrites: only real changes, front of the queue first, bounded', () => {
  test('a job seen waiting for the first time gets all three fields; a running job none', () => {
    const writes = waitWrites(
      [jobItem('job-a'), jobItem('job-b', { status: 'running' })],
      new Map([
        ['job-a', info(1, 1000.4, '4 × A10G needed, 0 free; first in the queue')],
        ['job-b', info(2, 5)],
      ]),
      0,
    );
    assert.deepEqual(writes, [
      {
        jobId: 'job-a',
        queuePosition: 1,
        changes: {
          set: {
            waitReason: '4 × A10G needed, 0 free; first in the queue',
            queuePosition: 1,
            estimatedStart: 1000,
          },
        },
      },
    ]);
  });

  test('unchanged fields, a small drift of the estimate, or a small move far back are not rewritten', () => {
    const stored = (id: string, queuePosition: number, estimatedStart: number) =>
      jobItem(id, { waitReason: 'r', queuePosition, estimatedStart });
    const writes = waitWrites(
      [stored('job-same', 3, 1000), stored('job-drift', 4, 10_000), stored('job-far', 500, 90_000)],
      new Map([
        ['job-same', info(3, 1000)],
        // 9,000 s from now: a 500 s drift is within a tenth of the wait.
        ['job-drift', info(4, 10_500)],
        // 500 → 480: less than a tenth, past the exact front.
        ['job-far', info(480, 90_000)],
      ]),
      1000,
    );
    assert.deepEqual(writes, []);
  });

  test('a new reason, a moved position near the front, or an estimate that moved far are rewritten', () => {
    const writes = waitWrites(
      [
        jobItem('job-reason', { waitReason: 'r', queuePosition: 2, estimatedStart: 100 }),
        jobItem('job-moved', { waitReason: 'r', queuePosition: 5, estimatedStart: 100 }),
        jobItem('job-late', { waitReason: 'r', queuePosition: 9, estimatedStart: 100 }),
        jobItem('job-never', { waitReason: 'r', queuePosition: 10, estimatedStart: 100 }),
      ],
      new Map([
        ['job-reason', info(2, 100, 'held for a higher-priority job')],
        ['job-moved', info(4, 100)],
        ['job-late', info(9, 4000)],
        ['job-never', info(10)],
      ]),
      0,
    );
    assert.deepEqual(
      writes.map((w) => w.jobId),
      ['job-reason', 'job-moved', 'job-late', 'job-never'],
    );
    assert.deepEqual(writes[3]!.changes.remove, ['estimatedStart']);
  });

  test('at most `limit` writes, the front of the queue first', () => {
    const items = Array.from({ length: 50 }, (_, i) => jobItem(`job-${i}`));
    const waiting = new Map(items.map((item, i) => [item.jobId, info(50 - i, 100)]));
    const writes = waitWrites(items, waiting, 0, 10);
    assert.deepEqual(
      writes.map((w) => w.queuePosition),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });
});
