import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { estimateStarts, type Waiter } from '../../../../lib/core/framework/start-estimate.ts';

const waiter = (jobId: string, options: Record<string, [gpus: number, seconds: number]>): Waiter => ({
  jobId,
  options: new Map(Object.entries(options).map(([t, [gpus, seconds]]) => [t, { gpus, seconds }])),
});

describe('estimateStarts: a backfilling list schedule over future GPU releases', () => {
  test('a job that fits now starts now; the next one when enough running jobs have finished', () => {
    const starts = estimateStarts(
      100,
      new Map([['A100', 2]]),
      [
        { gpus: new Map([['A100', 4]]), finishAt: 400 },
        { gpus: new Map([['A100', 2]]), finishAt: 200 },
      ],
      [waiter('a', { A100: [2, 1000] }), waiter('b', { A100: [4, 50] })],
    );
    // a takes the 2 free GPUs now; b needs 4: 2 free at 200 (not enough), 6 at 400.
    assert.deepEqual(Object.fromEntries(starts), { a: 100, b: 400 });
  });

  test('jobs started by the estimate hold their GPUs for their own run time', () => {
    const starts = estimateStarts(
      0,
      new Map([['V100', 4]]),
      [],
      [waiter('a', { V100: [4, 300] }), waiter('b', { V100: [4, 100] }), waiter('c', { V100: [2, 10] })],
    );
    assert.deepEqual(Object.fromEntries(starts), { a: 0, b: 300, c: 400 });
  });

  test('a small job starts past a large one that does not fit (backfill), in queue order among those that fit', () => {
    const starts = estimateStarts(
      0,
      new Map([['V100', 2]]),
      [{ gpus: new Map([['V100', 6]]), finishAt: 1000 }],
      [
        waiter('big', { V100: [8, 100] }),
        waiter('small1', { V100: [1, 100] }),
        waiter('small2', { V100: [1, 50] }),
      ],
    );
    assert.deepEqual(Object.fromEntries(starts), { small1: 0, small2: 0, big: 1000 });
  });

  test('a job usable on several types takes the first type that frees enough, the fastest on a tie', () => {
    const starts = estimateStarts(
      0,
      new Map([
        ['A100', 0],
        ['V100', 0],
      ]),
      [
        { gpus: new Map([['A100', 4]]), finishAt: 500 },
        { gpus: new Map([['V100', 4]]), finishAt: 200 },
      ],
      [waiter('a', { A100: [4, 100], V100: [4, 300] }), waiter('b', { A100: [4, 100], V100: [4, 300] })],
    );
    assert.deepEqual(Object.fromEntries(starts), { a: 200, b: 500 });
    const tie = estimateStarts(
      0,
      new Map([
        ['A100', 4],
        ['V100', 4],
      ]),
      [],
      [waiter('a', { V100: [4, 300], A100: [4, 100] }), waiter('b', { V100: [4, 300], A100: [4, 100] })],
    );
    // a runs fastest on A100; b gets the V100s at once rather than waiting for the A100s.
    assert.deepEqual(Object.fromEntries(tie), { a: 0, b: 0 });
  });

  test('a job no type will ever have room for gets no estimate; the queue behind it still does', () => {
    const starts = estimateStarts(
      0,
      new Map([['A100', 8]]),
      [{ gpus: new Map([['A100', 8]]), finishAt: Number.POSITIVE_INFINITY }],
      [waiter('huge', { A100: [32, 10] }), waiter('none', {}), waiter('ok', { A100: [8, 10] })],
    );
    assert.deepEqual(Object.fromEntries(starts), { ok: 0 });
  });

  test('stays fast at 25,000 waiting and 10,000 running jobs', () => {
    const holders = Array.from({ length: 10_000 }, (_, i) => ({
      gpus: new Map([[i % 2 ? 'A100' : 'V100', 1]]),
      finishAt: 1 + ((i * 7919) % 86_400),
    }));
    const waiters = Array.from({ length: 25_000 }, (_, i) =>
      waiter(`w${i}`, { A100: [1 + (i % 8), 600 + (i % 3600)], V100: [1 + (i % 8), 900 + (i % 3600)] }),
    );
    // CPU time, not wall time: a loaded machine (other test files run beside this one) must not fail it.
    const before = process.cpuUsage();
    const starts = estimateStarts(0, new Map(), holders, waiters);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    assert.equal(starts.size, 25_000);
    assert.ok(ms < 1500, `took ${ms.toFixed(0)} ms of CPU`);
  });
});
