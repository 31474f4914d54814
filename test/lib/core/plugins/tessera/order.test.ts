import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import {
  estimatedRemainingIterations,
  srtfWithMakespanGuard,
} from '../../../../../lib/core/plugins/tessera/order.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

// 8 GPUs, 1 iteration/s per GPU: a 1-GPU job of N iterations takes N seconds.
const eight = cluster([{ gpuType: 'V100-16GB', hosts: 2, gpusPerHost: 4 }]);
const ctx = roundContext({
  now: 0,
  cluster: eight,
  jobs: [],
  state: initialSchedulerState(),
  policy: getPolicy('tessera'),
  perf: linearPerf(),
});
const ids = (jobs: JobState[]) => srtfWithMakespanGuard.order(jobs, ctx).map((j) => j.spec.id);

describe('srtf with a makespan guard', () => {
  test('shortest remaining time first while no job is longer than the backlog', () => {
    // Three 4-GPU jobs of 100, 200 and 250 s: the backlog drains in (100 + 200 + 250) × 4 / 8 = 275 s > 250 s.
    const jobs = [
      queued({ id: 'c', gpus: 4, iterations: 250 * 4 }),
      queued({ id: 'a', gpus: 4, iterations: 100 * 4 }),
      queued({ id: 'b', gpus: 4, iterations: 200 * 4 }),
    ];
    assert.deepEqual(ids(jobs), ['a', 'b', 'c']);
  });

  test('a job at least as long as the backlog goes first, longest first', () => {
    // Drain = (10 × 1000 + 5000 + 4000) / 8 = 2375 s: both long 1-GPU jobs exceed it, and their GPU would serve the
    // waiting jobs 5000 / 8 = 625 s and 500 s, under their median remaining time (1000 s).
    const shorts = Array.from({ length: 10 }, (_, i) => queued({ id: `s${i}`, iterations: 1000 }));
    const jobs = [
      ...shorts,
      queued({ id: 'long4000', iterations: 4000 }),
      queued({ id: 'long5000', iterations: 5000 }),
    ];
    const order = ids(jobs);
    assert.deepEqual(order.slice(0, 2), ['long5000', 'long4000']);
    assert.deepEqual(
      order.slice(2),
      shorts.map((j) => j.spec.id),
    );
  });

  test('not while its GPUs would delay the waiting jobs by more than their median remaining time', () => {
    // Drain = (10 × 10 + 5000 + 4000) / 8 = 1137.5 s: both long jobs exceed it, but their GPU would serve the waiting
    // jobs 625 s and 500 s, and the others that wait have 10 s left (median): shortest first.
    const shorts = Array.from({ length: 10 }, (_, i) => queued({ id: `s${i}`, iterations: 10 }));
    const jobs = [
      ...shorts,
      queued({ id: 'long4000', iterations: 4000 }),
      queued({ id: 'long5000', iterations: 5000 }),
    ];
    assert.deepEqual(ids(jobs), [...shorts.map((j) => j.spec.id), 'long4000', 'long5000']);
  });

  test('a running job is ordered like any other (preemptive)', () => {
    // Drain = (500 + 50 + 3 × 300) × 4 / 8 = 725 s: no job is guarded.
    const runningLong: JobState = {
      ...queued({ id: 'run', gpus: 4, iterations: 4 * 500 }),
      status: 'running',
    };
    const others = ['x', 'y', 'z'].map((id) => queued({ id, gpus: 4, iterations: 4 * 300 }));
    const order = ids([runningLong, ...others, queued({ id: 'new', gpus: 4, iterations: 4 * 50 })]);
    assert.deepEqual(order, ['new', 'x', 'y', 'z', 'run']);
  });

  test('a job past its declared iterations still has work left in the estimate', () => {
    const overrun: JobState = { ...queued({ iterations: 100 }), progress: 150 };
    assert.equal(estimatedRemainingIterations(overrun), 15);
    const early: JobState = { ...queued({ iterations: 100 }), progress: 20 };
    assert.equal(estimatedRemainingIterations(early), 80);
  });

  test('once no job has arrived for the drain time: guarded jobs, then running, then waiting jobs by arrival', () => {
    // Drain (2,000 + 420 + 400 + 350 + 300) ÷ 8 = 433.75 s; the last arrival was at 40 s. The guarded job's share
    // (2,000 ÷ 8 = 250 s) is within the other waiting jobs' median (350 s), so guard-share lets it go first.
    const jobs = [
      queued({ id: 'guarded', iterations: 2_000, submitTime: 30 }),
      running({ id: 'running-late', iterations: 420, submitTime: 40 }, on('V100-16GB', ['g0-h0', [0]])),
      queued({ id: 'waiting-first', iterations: 400, submitTime: 10 }),
      queued({ id: 'waiting-second', iterations: 350, submitTime: 20 }),
      queued({ id: 'waiting-short', iterations: 300, submitTime: 35 }),
    ];
    const at = (now: number) => srtfWithMakespanGuard.order(jobs, { ...ctx, now }).map((j) => j.spec.id);
    assert.deepEqual(at(40 + 433), [
      'guarded',
      'waiting-short',
      'waiting-second',
      'waiting-first',
      'running-late',
    ]);
    assert.deepEqual(at(40 + 434), [
      'guarded',
      'running-late',
      'waiting-first',
      'waiting-second',
      'waiting-short',
    ]);
  });

  test('the same jobs give the same order whatever their input order', () => {
    const jobs = Array.from({ length: 20 }, (_, i) =>
      queued({ id: `j${i}`, iterations: 10 + ((i * 37) % 11) * 10 }),
    );
    assert.deepEqual(ids(jobs), ids([...jobs].reverse()));
  });
});
