// The per-tenant job summary GET /cluster shows: active jobs per status and GPUs held, per tenant, each job once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarizeTenants } from '../../../../lib/aws/items/tenant-summary.ts';

const allocation = (gpus: number[][]) => ({
  gpuType: 'A100',
  slices: gpus.map((g, i) => ({ hostId: `h${i}`, gpus: g })),
});

test('counts each tenant’s active jobs by status and the GPUs its placed jobs hold', () => {
  const summary = summarizeTenants([
    { jobId: 'j1', tenant: 'alice', status: 'running', allocation: allocation([[0, 1], [2]]) },
    { jobId: 'j2', tenant: 'alice', status: 'queued' },
    { jobId: 'j3', tenant: 'alice', status: 'queued' },
    { jobId: 'j4', tenant: 'bob', status: 'checkpointing', allocation: allocation([[0]]) },
    { jobId: 'j5', tenant: 'bob', status: 'finished' },
    { jobId: 'j6', tenant: 'carol', status: 'cancelled' },
    { jobId: 'j1', tenant: 'alice', status: 'queued' }, // listed again (the queue view's copy): counted once
  ] as never);
  assert.deepEqual(summary, {
    alice: { jobs: { running: 1, queued: 2 }, gpus: 3 },
    bob: { jobs: { checkpointing: 1 }, gpus: 1 },
  });
});

test('no active jobs: an empty summary', () => {
  assert.deepEqual(summarizeTenants([]), {});
});
