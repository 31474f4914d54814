import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { preRound } from '../../../../lib/aws/round/pre-round.ts';
import { allocation, hostItem, jobItem, runningJob } from '../support/items.ts';

const clock = { nowMs: 1_000_000 };

describe('preRound', () => {
  test('a host silent past the heartbeat timeout is lost and its jobs are requeued', () => {
    const hosts = [
      hostItem('quiet', { lastHeartbeatAt: 600_000 }),
      hostItem('fresh', { lastHeartbeatAt: 990_000 }),
    ];
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
