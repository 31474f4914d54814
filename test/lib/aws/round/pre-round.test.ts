import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { preRound } from '../../../../lib/aws/round/pre-round.ts';
import { allocation, hostItem, jobItem, runningJob } from '../support/items.ts';

const clock = { now: 1_000 };

describe('preRound', () => {
  test('a host silent past the heartbeat timeout is lost and its jobs are requeued', () => {
    const hosts = [hostItem('quiet', { lastHeartbeatAt: 600 }), hostItem('fresh', { lastHeartbeatAt: 990 })];
    const jobs = [
      runningJob('a', allocation([['quiet', [0]]])),
      runningJob('b', allocation([['fresh', [0]]])),
    ];
    const result = preRound(hosts, jobs, clock, 300);
    assert.deepEqual(
      result.hostChanges.map((c) => [c.hostId, c.why]),
      [['quiet', 'no heartbeat for 400 s']],
    );
    assert.equal(result.hosts.find((h) => h.hostId === 'quiet')?.state, 'lost');
    // A silent host may still be alive: it is told to stop everything, in a newer generation than it has.
    assert.deepEqual(result.hostChanges[0]?.desired, {
      hostId: 'quiet',
      generation: 1,
      jobs: [],
      stop: true,
    });
    assert.deepEqual(
      result.jobChanges.map((c) => [c.jobId, c.next.status, c.why]),
      [['a', 'suspended', 'host quiet is lost']],
    );
    assert.deepEqual(
      result.jobs.map((j) => [j.jobId, j.status]),
      [
        ['a', 'suspended'],
        ['b', 'running'],
      ],
    );
  });

  test('jobs on draining or unknown hosts are requeued; a host never heard from is not lost', () => {
    const hosts = [hostItem('drain', { state: 'draining' }), hostItem('new')];
    const jobs = [
      runningJob('a', allocation([['drain', [0]]])),
      runningJob('b', allocation([['gone', [0]]])),
      runningJob('c', allocation([['new', [0]]])),
    ];
    const result = preRound(hosts, jobs, clock, 300);
    assert.deepEqual(result.hostChanges, []);
    assert.deepEqual(
      result.jobChanges.map((c) => [c.jobId, c.why]),
      [
        ['a', 'host drain is draining'],
        ['b', 'host gone is unknown'],
      ],
    );
  });

  test('a job whose host reports its current generation finished or failed ends, freeing its GPUs', () => {
    const actual = (jobId: string, jobGeneration: number, phase: string, step: number | null) => ({
      jobId,
      jobGeneration,
      phase,
      step,
      checkpointStep: null,
      crashes: phase === 'failed' ? 3 : 0,
    });
    const hosts = [
      hostItem('h1', {
        lastHeartbeatAt: 990,
        actual: {
          draining: false,
          evacuating: null,
          gpuUtilization: null,
          jobs: [
            actual('done', 1, 'finished', 1000),
            actual('broken', 1, 'failed', null),
            actual('old', 1, 'finished', 5),
          ],
        },
      }),
    ];
    const jobs = [
      runningJob('done', allocation([['h1', [0]]])),
      runningJob('broken', allocation([['h1', [1]]])),
      runningJob('old', allocation([['h1', [2]]]), { jobGeneration: 2 }), // generation 1 ended, 2 runs
    ];
    const result = preRound(hosts, jobs, clock, 300);
    assert.deepEqual(
      result.jobChanges.map((c) => [c.jobId, c.next.status, c.next.allocation === undefined]),
      [
        ['done', 'finished', true],
        ['broken', 'failed', true],
      ],
    );
    assert.equal(result.jobChanges[0]?.next.progress, 1000);
    assert.match(result.jobChanges[1]?.next.failureReason ?? '', /failed on host h1/);
    assert.deepEqual(
      result.jobs.map((j) => j.jobId),
      ['old'],
    );
  });

  test('cancellation requests end the job and keep it from the core', () => {
    const result = preRound(
      [hostItem('h')],
      [
        jobItem('q', { cancelRequested: true }),
        runningJob('r', allocation([['h', [0]]]), { cancelRequested: true }),
      ],
      clock,
      300,
    );
    assert.deepEqual(
      result.jobChanges.map((c) => [c.jobId, c.next.status]),
      [
        ['q', 'cancelled'],
        ['r', 'cancelled'],
      ],
    );
    assert.deepEqual(result.jobs, []);
  });
});
