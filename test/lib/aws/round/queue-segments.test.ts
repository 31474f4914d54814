import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toQueuedJob } from '../../../../lib/aws/items/queued-job.ts';
import {
  JOBS_PER_SEGMENT,
  segmentContent,
  segmentCountFor,
  segmentOf,
} from '../../../../lib/aws/round/queue-segments.ts';
import { jobItem } from '../support/items.ts';

describe('queue segments', () => {
  test('every job in one segment; doubling the count splits each segment in two', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => `tenant-${i % 7}-${(i * 7919).toString(36)}`);
    const sizes = new Array(256).fill(0);
    for (const id of ids) {
      const at128 = segmentOf(id, 128);
      const at256 = segmentOf(id, 256);
      assert.ok(at128 >= 0 && at128 < 128);
      assert.equal(at256 % 128, at128, 'a job of segment i of 128 lands in i or i + 128 of 256');
      sizes[at256]++;
    }
    // Spread: no segment holds more than three times the average (15.6).
    assert.ok(Math.max(...sizes) < 3 * (ids.length / 256), `largest segment ${Math.max(...sizes)}`);
  });

  test('the count follows the queue: 8 to 16 jobs per segment, kept while 2 to 16', () => {
    assert.equal(segmentCountFor(0), 1);
    assert.equal(segmentCountFor(2000), 128);
    assert.equal(segmentCountFor(25_000), 2048);
    assert.ok(25_000 / 2048 <= JOBS_PER_SEGMENT && 25_000 / 2048 > JOBS_PER_SEGMENT / 2);
    assert.equal(segmentCountFor(2100, 128), 256, 'grows past 16 per segment');
    assert.equal(segmentCountFor(1200, 128), 128, 'kept while at least 2 per segment');
    assert.equal(segmentCountFor(200, 128), 16, 'shrinks below 2 per segment');
    assert.equal(segmentCountFor(2000, 128, 512), 512, 'never below the minimum');
  });

  test('the content key ignores revisions, change stamps and wait info, and the order of keys', () => {
    const a = toQueuedJob(jobItem('job-a', { rev: 3, waitReason: 'no free GPU', queuePosition: 4 }));
    const b = toQueuedJob(jobItem('job-b', { rev: 1 }));
    const base = segmentContent([a, b]);
    assert.deepEqual(
      (JSON.parse(base.body) as { jobId: string }[]).map((j) => j.jobId),
      ['job-a', 'job-b'],
      'by job id',
    );
    assert.equal(base.count, 2);
    const churn = segmentContent([
      b,
      { ...a, rev: 9, changedAt: 123, waitReason: 'behind 3 jobs', queuePosition: 2, estimatedStart: 50 },
    ]);
    assert.equal(churn.contentKey, base.contentKey);
    assert.notEqual(churn.sha256, base.sha256, 'the body (and its checksum) still carries what it holds');
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as typeof a;
    assert.equal(segmentContent([reordered, b]).contentKey, base.contentKey);
    assert.notEqual(segmentContent([{ ...a, status: 'suspended' }, b]).contentKey, base.contentKey);
    assert.notEqual(segmentContent([a]).contentKey, base.contentKey, 'a job left');
  });
});
