import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  composeChanges,
  jobChangesFromActions,
  mergeChanges,
  requeue,
  terminate,
  withMasterPorts,
} from '../../../../lib/aws/round/job-transitions.ts';
import { preferredMasterPort } from '../../../../lib/aws/round/rendezvous-ports.ts';
import type { Action } from '../../../../lib/core/model/action.ts';
import { allocation, jobItem, runningJob } from '../support/items.ts';

const clock = { now: 110 }; // epoch seconds
const items = (...jobs: ReturnType<typeof jobItem>[]) => new Map(jobs.map((j) => [j.jobId, j]));
const canRun = () => undefined;
const machine = () => 'machine' as const;

describe('jobChangesFromActions', () => {
  test('start: running on the allocation, new generation, resuming from the newest checkpoint', () => {
    const job = jobItem('a', { checkpointStep: 40, jobGeneration: 2, status: 'suspended' });
    const alloc = allocation([['h1', [0, 1]]]);
    const [c] = jobChangesFromActions(
      items(job),
      [{ kind: 'start', jobId: 'a', allocation: alloc, resumeStep: 0 }],
      clock,
      canRun,
      machine,
    );
    assert.deepEqual(c?.expected, { status: 'suspended', jobGeneration: 2 });
    assert.equal(c?.next.status, 'running');
    assert.equal(c?.next.jobGeneration, 3);
    assert.equal(c?.next.resumeStep, 40);
    assert.equal(c?.next.accountedAt, 110);
    assert.equal(c?.next.runningSince, 110);
    assert.equal(c?.next.restarts, 1, 'a job that ran before counts a restart');
    assert.equal(c?.next.placementLevel, 'machine');
    assert.deepEqual(c?.next.allocation, alloc);
  });

  test('preempt folds the GPU-seconds held and requeues without GPUs', () => {
    const job = runningJob('a', allocation([['h1', [0, 1]]]), {
      attainedService: 5,
      runningSeconds: 3,
      accountedAt: 100,
    });
    const [c] = jobChangesFromActions(
      items(job),
      [{ kind: 'stop', jobId: 'a', reason: 'preempted' }],
      clock,
      canRun,
      machine,
    );
    assert.equal(c?.next.status, 'suspended');
    assert.equal(c?.next.attainedService, 5 + 2 * 10);
    assert.equal(c?.next.runningSeconds, 3 + 10);
    assert.equal(c?.next.waitingSince, 110);
    assert.equal(c?.next.allocation, undefined);
    assert.ok(c?.changes.remove?.includes('allocation'));
  });

  test('migrate and rescale count, keep runningSince, bump the generation', () => {
    const job = runningJob('a', allocation([['h1', [0]]]), { checkpointStep: 7 });
    const to = allocation([['h2', [1]]]);
    const [m] = jobChangesFromActions(
      items(job),
      [{ kind: 'migrate', jobId: 'a', from: job.allocation!, to, resumeStep: 0 }],
      clock,
      canRun,
      machine,
    );
    assert.equal(m?.next.migrations, 1);
    assert.equal(m?.next.runningSince, 10);
    assert.equal(m?.next.jobGeneration, 2);
    assert.equal(m?.next.resumeStep, 7);
    const [r] = jobChangesFromActions(
      items(job),
      [
        {
          kind: 'rescale',
          jobId: 'a',
          from: job.allocation!,
          to: allocation([['h2', [0, 1]]]),
          resumeStep: 0,
        },
      ],
      clock,
      canRun,
      machine,
    );
    assert.equal(r?.next.restarts, 1);
  });

  test('unschedulable fails the job only when the fleet can never run it', () => {
    const job = jobItem('a');
    const stop: Action = { kind: 'stop', jobId: 'a', reason: 'unschedulable' };
    assert.deepEqual(
      jobChangesFromActions(items(job), [stop], clock, canRun, machine),
      [],
      'waits for the fleet to grow',
    );
    const [c] = jobChangesFromActions(items(job), [stop], clock, () => 'no H100 family', machine);
    assert.equal(c?.next.status, 'failed');
    assert.equal(c?.next.failureReason, 'unschedulable: no H100 family');
    assert.ok((c?.changes.set?.expiresAt as number) > 110, 'terminal jobs get a TTL');
  });

  test('ignores fleet and checkpoint actions and unknown jobs', () => {
    const actions: Action[] = [
      { kind: 'checkpoint', jobId: 'a' },
      { kind: 'terminateInstance', hostId: 'h' },
      { kind: 'start', jobId: 'ghost', allocation: allocation([['h', [0]]]), resumeStep: 0 },
    ];
    assert.deepEqual(jobChangesFromActions(items(jobItem('a')), actions, clock, canRun, machine), []);
  });
});

describe('rendezvous ports', () => {
  test('withMasterPorts adds the port to the placing change and never sets and removes it at once', () => {
    const job = jobItem('a');
    const changes = jobChangesFromActions(
      items(job),
      [{ kind: 'start', jobId: 'a', allocation: allocation([['h1', [0]]]), resumeStep: 0 }],
      clock,
      canRun,
      machine,
    );
    const [c] = withMasterPorts(changes, items(job), clock);
    const port = preferredMasterPort('a', c!.next.jobGeneration);
    assert.equal(c?.changes.set?.masterPort, port);
    assert.ok(!c?.changes.remove?.includes('masterPort'));
    assert.equal(c?.next.masterPort, port);
  });

  test('a holding job that lost its port gets a change of its own', () => {
    const job = runningJob('a', allocation([['h1', [0]]]), { masterPort: undefined });
    const [c] = withMasterPorts([], items(job), clock);
    assert.deepEqual(c?.changes.set?.masterPort, preferredMasterPort('a', 1));
    assert.deepEqual(c?.expected, { status: 'running', jobGeneration: 1 });
  });
});

describe('composing changes', () => {
  test('a requeue then a start in one round is one write expecting the original state', () => {
    const job = runningJob('a', allocation([['lost', [0]]]));
    const first = requeue(job, 'host lost', clock);
    const [second] = jobChangesFromActions(
      items(first.next),
      [{ kind: 'start', jobId: 'a', allocation: allocation([['h2', [0]]]), resumeStep: 0 }],
      clock,
      canRun,
      machine,
    );
    const merged = composeChanges(first, second!);
    assert.deepEqual(merged.expected, { status: 'running', jobGeneration: 1 });
    assert.equal(merged.next.status, 'running');
    assert.deepEqual(merged.changes.set?.allocation, second?.next.allocation);
    assert.ok(!merged.changes.remove?.includes('allocation'), 'a key set later is no longer removed');
    assert.equal(mergeChanges([first, second!]).length, 1);
  });

  test('terminate removes the cancel request and stamps finish time only when finished', () => {
    const job = runningJob('a', allocation([['h', [0]]]), { cancelRequested: true });
    const cancelled = terminate(job, 'cancelled', 'cancel', clock);
    assert.equal(cancelled.next.cancelRequested, undefined);
    assert.equal(cancelled.next.finishTime, undefined);
    assert.equal(terminate(job, 'finished', 'done', clock).next.finishTime, 110);
  });
});

describe('requeue', () => {
  test('the hosts it leaves stay former holders, so their late checkpoints count; lost hosts do not', () => {
    const job = runningJob(
      'a',
      allocation([
        ['h1', [0]],
        ['h2', [0]],
      ]),
    );
    assert.deepEqual(requeue(job, 'preempted', clock).next.formerHolders, {
      jobGeneration: job.jobGeneration,
      hostIds: ['h1', 'h2'],
    });
    assert.deepEqual(requeue(job, 'host h2 is lost', clock, new Set(['h2'])).next.formerHolders, {
      jobGeneration: job.jobGeneration,
      hostIds: ['h1'],
    });
    assert.equal(requeue(job, 'both lost', clock, new Set(['h1', 'h2'])).next.formerHolders, undefined);
  });
});
