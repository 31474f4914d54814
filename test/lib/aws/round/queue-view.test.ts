import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobItem } from '../../../../lib/aws/items/job-item.ts';
import { type QueueSnapshot, toQueuedJob } from '../../../../lib/aws/items/queued-job.ts';
import {
  QUEUE_VIEW_DEFAULTS,
  QueueView,
  type QueueViewSources,
} from '../../../../lib/aws/round/queue-view.ts';
import { jobItem } from '../support/items.ts';

/** A Jobs table in memory: every write stamps `changedAt` with the test's wall clock and bumps `rev`. */
const fakeTable = (clock: { now: number }) => {
  const items = new Map<string, JobItem>();
  const calls = { full: 0, pages: 0, first: 0, delta: [] as number[], bodies: [] as string[] };
  const write = (item: JobItem) => {
    const previous = items.get(item.jobId);
    items.set(item.jobId, { ...item, rev: (previous?.rev ?? 0) + 1, changedAt: clock.now });
  };
  const sources = (snapshot?: QueueSnapshot | { invalid: string }): QueueViewSources => ({
    jobs: {
      // What the change index holds: keys, revision and status only.
      listChangedSince: async (since) => {
        calls.delta.push(since);
        return [...items.values()]
          .filter((j) => (j.changedAt ?? 0) >= since)
          .map(({ jobId, rev, status, changedAt }) => ({
            jobId,
            ...(rev !== undefined ? { rev } : {}),
            status,
            changedAt: changedAt ?? 0,
            changeShard: 'c0',
          }));
      },
      getRawMany: async (jobIds, attributes) => {
        calls.bodies.push(...jobIds);
        return jobIds.flatMap((id) => {
          const item = items.get(id);
          if (!item) return [];
          const keep = new Set(['jobId', ...(attributes ?? Object.keys(item))]);
          return [Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)))];
        });
      },
      // Pages of two jobs, oldest first, within the range of submittedAt when given.
      pageRawByStatus: async (status, _attributes, start, range) => {
        calls.pages++;
        const from = (start?.i as number | undefined) ?? 0;
        if (from === 0 && status === 'queued' && (!range || range.from === calls.first)) calls.full++;
        const all = [...items.values()]
          .filter((j) => j.status === status)
          .filter((j) => !range || (j.submittedAt >= range.from && j.submittedAt <= range.to))
          .sort((a, b) => a.submittedAt - b.submittedAt);
        return {
          items: all.slice(from, from + 2) as Record<string, unknown>[],
          ...(from + 2 < all.length ? { next: { i: from + 2 } } : {}),
        };
      },
      submittedRange: async (status) => {
        const times = [...items.values()].filter((j) => j.status === status).map((j) => j.submittedAt);
        if (times.length === 0) return undefined;
        if (status === 'queued') calls.first = Math.min(...times);
        return { first: Math.min(...times), last: Math.max(...times) };
      },
    },
    loadSnapshot: async () => snapshot ?? { invalid: 'no snapshot' },
  });
  return { items, write, calls, sources };
};

const ids = (view: QueueView) => view.waiting().map((j) => j.jobId);

describe('QueueView', () => {
  test('a cold view without a snapshot reads in full, then only what changed since (with the overlap)', async () => {
    const clock = { now: 1_000_000 };
    const table = fakeTable(clock);
    table.write(jobItem('job-a', { submittedAt: 1 }));
    table.write(jobItem('job-b', { submittedAt: 2, status: 'running' }));
    const view = new QueueView(table.sources(), () => clock.now, {
      overlapMs: 30_000,
      maxDeltaAgeMs: 3600_000,
      fullReadEveryMs: 3600_000,
    });
    assert.equal((await view.refresh()).how, 'full');
    assert.deepEqual(ids(view), ['job-a']);
    assert.ok(!('launch' in view.get('job-a')!), 'launch settings are not kept');

    clock.now += 60_000;
    table.write(jobItem('job-c', { submittedAt: 3 }));
    table.write({ ...table.items.get('job-a')!, status: 'cancelled' });
    const delta = await view.refresh();
    assert.equal(delta.how, 'delta');
    assert.equal(table.calls.full, 1);
    // The changes since the full read began (right after it), then since the previous read, each with the overlap.
    assert.deepEqual(table.calls.delta, [1_000_000 - 30_000, 1_000_000 - 30_000]);
    assert.deepEqual(ids(view), ['job-c']);
  });

  test('a delta reads the bodies of newer waiting jobs only: jobs that left the queue or never were in it need none', async () => {
    const clock = { now: 1_000_000 };
    const table = fakeTable(clock);
    table.write(jobItem('job-a', { submittedAt: 1 }));
    table.write(jobItem('job-b', { submittedAt: 2 }));
    table.write(jobItem('job-r', { submittedAt: 3, status: 'running' }));
    const view = new QueueView(table.sources(), () => clock.now, {
      overlapMs: 30_000,
      maxDeltaAgeMs: 3600_000,
      fullReadEveryMs: 3600_000,
    });
    await view.refresh();
    table.calls.bodies.length = 0;

    clock.now += 60_000;
    table.write({ ...table.items.get('job-a')!, status: 'running' }); // started: leaves the queue
    table.write({ ...table.items.get('job-b')!, waitReason: 'no free A100' }); // still waiting, newer
    table.write({ ...table.items.get('job-r')!, progress: 10 }); // a running job's progress
    table.write(jobItem('job-c', { submittedAt: 4 })); // new
    const delta = await view.refresh();
    assert.deepEqual([delta.how, delta.read, delta.fetched], ['delta', 4, 2]);
    assert.deepEqual(table.calls.bodies.sort(), ['job-b', 'job-c']);
    assert.deepEqual(ids(view), ['job-b', 'job-c']);
    assert.equal(view.get('job-b')?.waitReason, 'no free A100');

    // The same entries again (the overlap): nothing newer, no body read; job-a's older waiting view stays out.
    table.calls.bodies.length = 0;
    const again = await view.refresh();
    assert.deepEqual([again.read, again.fetched], [4, 0]);
    assert.equal(view.apply(jobItem('job-a', { rev: 1 })), false);
  });

  test('an older view of a job never replaces a newer one (a lagging index)', () => {
    const view = new QueueView(fakeTable({ now: 0 }).sources());
    assert.ok(view.apply(jobItem('job-a', { rev: 3, status: 'suspended' })));
    assert.equal(view.apply(jobItem('job-a', { rev: 2, status: 'queued' })), false);
    assert.equal(view.get('job-a')?.status, 'suspended');
    // Started (rev 4): gone from the queue, and its older waiting views stay out.
    view.apply(jobItem('job-a', { rev: 4, status: 'running' }));
    assert.equal(view.apply(jobItem('job-a', { rev: 3, status: 'suspended' })), false);
    assert.deepEqual(ids(view), []);
    // Requeued later (rev 5): back in.
    assert.ok(view.apply(jobItem('job-a', { rev: 5, status: 'suspended' })));
    assert.deepEqual(ids(view), ['job-a']);
  });

  test('a cold view starts from a valid snapshot and reads the changes since it', async () => {
    const clock = { now: 5_000_000 };
    const table = fakeTable(clock);
    const snapshot: QueueSnapshot = {
      watermarkMs: 4_900_000,
      fullReadAtMs: 4_900_000,
      jobs: [toQueuedJob(jobItem('job-old', { rev: 1, submittedAt: 1 }))],
    };
    clock.now = 4_950_000;
    table.write(jobItem('job-new', { submittedAt: 9 }));
    clock.now = 5_000_000;
    const view = new QueueView(table.sources(snapshot), () => clock.now);
    const result = await view.refresh();
    assert.equal(result.how, 'snapshot');
    assert.equal(table.calls.full, 0);
    assert.deepEqual(ids(view), ['job-old', 'job-new']);
  });

  test('an invalid or too old snapshot, or the safety interval, means a full read', async () => {
    const clock = { now: 10_000_000 };
    const table = fakeTable(clock);
    const options = { overlapMs: 1000, maxDeltaAgeMs: 100_000, fullReadEveryMs: 500_000 };
    const invalid = new QueueView(
      table.sources({ invalid: 'checksum does not match' }),
      () => clock.now,
      options,
    );
    const first = await invalid.refresh();
    assert.equal(first.how, 'full');
    assert.equal(first.snapshotIssue, 'checksum does not match');
    const old = new QueueView(
      table.sources({ watermarkMs: 1, fullReadAtMs: 1, jobs: [] }),
      () => clock.now,
      options,
    );
    assert.equal((await old.refresh()).how, 'full');
    clock.now += 50_000;
    assert.equal((await old.refresh()).how, 'delta');
    clock.now += 500_000;
    assert.equal((await old.refresh()).how, 'full', 'a full read at least every fullReadEveryMs');
  });

  test('a full read past its deadline goes on in the next refresh; until done the view says it is not complete', async () => {
    const clock = { now: 1_000_000 };
    const table = fakeTable(clock);
    for (let i = 0; i < 5; i++) table.write(jobItem(`job-${i}`, { submittedAt: i }));
    const view = new QueueView(table.sources(), () => clock.now, {
      ...QUEUE_VIEW_DEFAULTS,
      fullReadLanes: 1,
    });
    const first = await view.refresh(clock.now - 1);
    assert.deepEqual([first.how, first.complete, first.read], ['full', false, 2]);
    assert.deepEqual(ids(view), []);
    table.write(jobItem('job-late', { submittedAt: 9 }));
    assert.equal((await view.refresh(clock.now - 1)).complete, false);
    const done = await view.refresh();
    assert.deepEqual([done.how, done.complete], ['full', true]);
    assert.deepEqual(ids(view), ['job-0', 'job-1', 'job-2', 'job-3', 'job-4', 'job-late']);
  });

  test('a full read in parallel lanes of submittedAt finds every waiting job once', async () => {
    const clock = { now: 1_000_000 };
    const table = fakeTable(clock);
    // Submission times with repeats and jobs on the lanes' shared bounds.
    for (let i = 0; i < 40; i++) table.write(jobItem(`job-${i}`, { submittedAt: Math.floor(i / 3) * 8 }));
    table.write(jobItem('job-s', { submittedAt: 5, status: 'suspended' }));
    table.write(jobItem('job-r', { submittedAt: 6, status: 'running' }));
    const view = new QueueView(table.sources(), () => clock.now, {
      ...QUEUE_VIEW_DEFAULTS,
      fullReadLanes: 4,
    });
    const result = await view.refresh();
    assert.deepEqual([result.how, result.complete], ['full', true]);
    assert.equal(view.size, 41);
    assert.ok(view.get('job-s'));
    assert.equal(view.get('job-r'), undefined);
  });

  test('invalidate forgets the view: the next refresh starts over', async () => {
    const clock = { now: 1_000_000 };
    const table = fakeTable(clock);
    table.write(jobItem('job-a'));
    const view = new QueueView(table.sources(), () => clock.now);
    const failed = view.use();
    await view.refresh();
    const next = view.use();
    view.invalidate(failed);
    assert.equal(view.size, 1, 'a round that fails after a later one began leaves the view alone');
    view.invalidate(next);
    assert.equal(view.size, 0);
    assert.equal(view.snapshot(), undefined);
    assert.equal((await view.refresh()).how, 'full');
    assert.deepEqual(ids(view), ['job-a']);
  });
});
