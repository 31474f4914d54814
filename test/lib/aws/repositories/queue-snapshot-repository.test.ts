import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toQueuedJob } from '../../../../lib/aws/items/queued-job.ts';
import { chunkJobs } from '../../../../lib/aws/repositories/queue-snapshot-repository.ts';
import { jobItem } from '../support/items.ts';

describe('chunkJobs', () => {
  test('every job in exactly one chunk, each chunk JSON within the byte limit', () => {
    const jobs = Array.from({ length: 500 }, (_, i) => toQueuedJob(jobItem(`job-${i}`)));
    const chunks = chunkJobs(jobs, 20_000);
    assert.ok(chunks.length > 1);
    for (const chunk of chunks) assert.ok(Buffer.byteLength(chunk, 'utf8') <= 20_000);
    const back = chunks.flatMap((c) => JSON.parse(c) as { jobId: string }[]).map((j) => j.jobId);
    assert.deepEqual(
      back,
      jobs.map((j) => j.jobId),
    );
  });

  test('an empty queue is one empty chunk', () => {
    assert.deepEqual(chunkJobs([]), ['[]']);
  });
});
