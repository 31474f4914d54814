// No job twice, no job lost, through the real handlers on DynamoDB Local: a host silent past the heartbeat
// timeout (but alive) is told to stop and its job runs on exactly one other host with a newer generation whose
// late reports from the old host change nothing; a job whose `finished` report was lost is ended from the host's
// reported actual state in the next round.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DynamoDbDesiredStateSource } from '../../agents/host/ports/dynamodb-desired-state-source.ts';
import { createRoundHandler } from '../../functions/round/handler.ts';
import { createTelemetryHandler } from '../../functions/telemetry/handler.ts';
import {
  admitHosts,
  callApi,
  heartbeat as hostHeartbeat,
  invokeRound,
  jobDocument,
  register,
  sendTelemetry,
  submit,
} from './support/fixtures.ts';
import { ACCOUNT, type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
/** Seconds the control plane's clock runs ahead of the wall clock (to pass the heartbeat timeout). */
let skewSeconds = 0;
/** The control plane's clock, epoch seconds. */
const clock = () => Date.now() / 1000 + skewSeconds;

before(async () => {
  cp = await startControlPlane({
    runner: {
      factories: {
        round: (options) => createRoundHandler({ ...options, clock }),
        telemetry: (options) => createTelemetryHandler({ ...options, clock }),
      },
    },
  });
});
after(async () => {
  await cp?.stop();
});

const round = () => invokeRound(cp);
const telemetry = (...messages: unknown[]) => sendTelemetry(cp, ...messages);
const heartbeat = (hostId: string, jobs: unknown[] = []) => hostHeartbeat(hostId, clock(), jobs);
const copyOf = (hostId: string) =>
  new DynamoDbDesiredStateSource(cp.clients.dynamodb, {
    tableName: cp.hosts.tableName,
    hostId: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${hostId}`,
  }).read();

describe('no job twice, no job lost', () => {
  let jobId = '';

  test('a silent but alive host is told to stop; its job moves once, and its late reports are ignored', async () => {
    await admitHosts(cp, 'h-a', 'h-b');
    await telemetry(register('h-a', 4), register('h-b', 4));
    const { body } = await submit(cp, jobDocument({ clientToken: 'twice', gpus: 4, iterations: 1_000_000 }));
    jobId = body.job.jobId;
    await round();
    const first = (await cp.jobs.get(jobId))!;
    const oldHost = first.allocation!.slices[0]!.hostId;
    const newHost = oldHost === 'h-a' ? 'h-b' : 'h-a';

    skewSeconds = 400; // past the 300 s heartbeat timeout; only the other host kept beating
    await telemetry(heartbeat(newHost));
    await round();
    const lost = (await cp.hosts.get(oldHost))!;
    assert.equal(lost.state, 'lost');
    assert.deepEqual(lost.desired?.jobs, []);
    assert.equal(lost.desired?.stop, true);
    assert.deepEqual(await copyOf(oldHost), lost.desired, 'the agent reads the stop order');

    const moved = (await cp.jobs.get(jobId))!;
    assert.equal(moved.status, 'running');
    assert.deepEqual([...new Set(moved.allocation!.slices.map((s) => s.hostId))], [newHost]);
    assert.ok(moved.jobGeneration > first.jobGeneration);

    // The old host's agent speaks late, about the old generation: nothing changes.
    await telemetry(
      {
        type: 'progress',
        hostId: oldHost,
        at: clock(),
        jobId,
        jobGeneration: first.jobGeneration,
        step: 500,
        stepTime: 0.1,
        samplesPerSecond: 1,
        gpuUtilization: null,
      },
      {
        type: 'checkpointed',
        hostId: oldHost,
        at: clock(),
        jobId,
        jobGeneration: first.jobGeneration,
        step: 400,
        uri: 'file:///x',
      },
      {
        type: 'finished',
        hostId: oldHost,
        at: clock(),
        jobId,
        jobGeneration: first.jobGeneration,
        step: 1_000_000,
      },
    );
    const after = (await cp.jobs.get(jobId))!;
    assert.equal(after.status, 'running');
    assert.equal(after.progress, moved.progress);
    assert.equal(after.checkpointStep, moved.checkpointStep);
  });

  test('a host that fenced itself (back in contact before it was declared lost): its stopped job is requeued', async () => {
    // A host of its own: the first test's job holds the only other one, and taking an equal job's GPUs (a restart for
    // no gain) is not what this test is about.
    await admitHosts(cp, 'h-c');
    await telemetry(register('h-c', 4));
    const { body } = await submit(cp, jobDocument({ clientToken: 'fenced', gpus: 4, iterations: 1_000_000 }));
    await telemetry(heartbeat('h-a'), heartbeat('h-b'), heartbeat('h-c'));
    await round();
    const placed = (await cp.jobs.get(body.job.jobId))!;
    assert.equal(placed.status, 'running');
    const hostId = placed.allocation!.slices[0]!.hostId;
    const stopped = (reason: string, jobGeneration = placed.jobGeneration) => ({
      type: 'stopped',
      hostId,
      at: clock() / 1000,
      jobId: placed.jobId,
      jobGeneration,
      reason,
      checkpointStep: 40,
      timedOut: false,
    });
    await telemetry(stopped('fenced', placed.jobGeneration - 1)); // an older placement's: ignored
    assert.equal((await cp.jobs.get(placed.jobId))?.status, 'running');
    await telemetry(stopped('fenced'));
    const requeued = (await cp.jobs.get(placed.jobId))!;
    assert.ok(['queued', 'suspended'].includes(requeued.status), `back in the queue (${requeued.status})`);
    assert.equal(requeued.checkpointStep, 40, 'its checkpoint counts');
    assert.match(requeued.timeline!.at(-1)!.detail ?? '', /lost contact with the control plane .*fenced/);
    await telemetry(heartbeat('h-a'), heartbeat('h-b'), heartbeat('h-c'));
    await round();
    const again = (await cp.jobs.get(placed.jobId))!;
    assert.equal(again.status, 'running');
    assert.ok(again.jobGeneration > placed.jobGeneration, 'placed again with a newer generation');
    const host = (await cp.hosts.get(again.allocation!.slices[0]!.hostId))!;
    assert.deepEqual(
      host.desired?.fence,
      { afterSeconds: 240, graceSeconds: 30 },
      'the terms of the 300 s timeout',
    );
    await callApi(cp, { method: 'DELETE', resource: '/jobs/{id}', pathParameters: { id: placed.jobId } });
    await round();
  });

  test('a finished report that never arrived: the host’s actual state ends the job and frees its GPUs', async () => {
    const job = (await cp.jobs.get(jobId))!;
    const hostId = job.allocation!.slices[0]!.hostId;
    await telemetry(
      heartbeat(hostId, [
        {
          jobId,
          jobGeneration: job.jobGeneration,
          phase: 'finished',
          step: 1_000_000,
          checkpointStep: null,
          crashes: 0,
          workers: [],
        },
      ]),
    );
    await round();
    const ended = (await cp.jobs.get(jobId))!;
    assert.equal(ended.status, 'finished');
    assert.equal(ended.allocation, undefined);
    assert.deepEqual((await cp.hosts.get(hostId))?.desired?.jobs, [], 'its GPUs are free in the same round');
  });
});
