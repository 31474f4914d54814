// Agent telemetry through the telemetry queue (event source mapping with partial batch failures): progress and
// throughput into Jobs and Profiles, heartbeats, checkpoints, completions, and malformed reports to the DLQ.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ReceiveMessageCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { REJECTION_REASON_ATTRIBUTE } from '../../lib/aws/sqs/dead-letter.ts';
import { allocationGpuCount } from '../../lib/core/model/plan.ts';
import { localHostCredentials } from '../../lib/local/endpoint/index.ts';
import { sqsEvent } from '../../lib/local/runner/index.ts';
import type { TelemetryMessage } from '../../lib/protocol/telemetry.ts';
import {
  admitHosts,
  drainQueue,
  eventually,
  hostSender,
  invokeRound,
  jobDocument,
  register,
  submit,
  telemetryMessages,
} from './support/fixtures.ts';
import { type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
let jobId = '';
let generation = 0;

before(async () => {
  cp = await startControlPlane();
  cp.runner.startEventSources(['telemetry']);
});
after(async () => {
  await cp?.stop();
});

/** Sends reports through the queue, each with the credentials of the host it names (`as` overrides). */
const send = async (...messages: unknown[]) => sendAs(undefined, ...messages);
const sendAs = async (as: string | undefined, ...messages: unknown[]) => {
  const hostOf = (m: unknown) =>
    as ?? (typeof m === 'string' ? 'host-1' : String((m as { hostId: string }).hostId));
  for (const hostId of new Set(messages.map(hostOf))) {
    const sqs = new SQSClient({
      endpoint: cp.endpointUrl,
      region: REGION,
      credentials: localHostCredentials(hostId),
    });
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: cp.queueUrl('QueuesTelemetry'),
        Entries: messages
          .filter((m) => hostOf(m) === hostId)
          .map((m, i) => ({ Id: String(i), MessageBody: typeof m === 'string' ? m : JSON.stringify(m) })),
      }),
    );
    sqs.destroy();
  }
};
/** One report through the handler itself (not the queue): for assertions that something did not change. */
const direct = (message: unknown, sender?: string) =>
  cp.runner.invoke(
    'telemetry',
    sqsEvent(telemetryMessages([message], sender), 'arn:aws:sqs:us-east-1:000000000000:telemetry', REGION),
  );
const rejections = async () =>
  (await drainQueue(cp, cp.queueUrl('QueuesTelemetryDlq'))).map(
    (m) => m.attributes[REJECTION_REASON_ATTRIBUTE],
  );
const round = () => invokeRound(cp);
const progress = (step: number, stepTime: number): TelemetryMessage => ({
  type: 'progress',
  hostId: 'host-1',
  at: Date.now() / 1000,
  jobId,
  jobGeneration: generation,
  step,
  stepTime,
  samplesPerSecond: 128 / stepTime,
  gpuUtilization: 95,
});

describe('telemetry', () => {
  test('registration through the queue makes a schedulable host with its topology', async () => {
    await admitHosts(cp, 'host-1', 'host-2', 'host-9', 'odd-host');
    await send(register('host-1', 4));
    const host = await eventually(async () => {
      const h = await cp.hosts.get('host-1');
      return h?.state === 'active' ? h : undefined;
    }, 'the registered host');
    assert.equal(host.gpuType, 'A10G');
    assert.equal(host.gpuCount, 4);
    assert.equal(host.rack, 'rack-1');
    assert.equal(host.network, 'net-1');
    const { body } = await submit(cp, jobDocument({ clientToken: 'trained', gpus: 2, iterations: 1000 }));
    jobId = body.job.jobId;
    await round();
    const job = await cp.jobs.get(jobId);
    assert.equal(job?.status, 'running');
    generation = job!.jobGeneration;
  });

  test('progress updates the job and the measured profile of its placement', async () => {
    await send(progress(100, 0.5), progress(200, 0.5), progress(300, 0.25));
    const job = await eventually(async () => {
      const j = await cp.jobs.get(jobId);
      return j && j.progress === 300 ? j : undefined;
    }, 'progress 300');
    assert.ok(job.lastProgressAt !== undefined);
    // The default policy may run the job on more GPUs than requested while nobody waits: key by what it holds.
    const held = allocationGpuCount(job.allocation!);
    const profile = await eventually(async () => {
      const { items } = await cp.profiles.listAll();
      const p = items.find((i) => i.signature === 'resnet50#64' && i.placement === `A10G#${held}#machine#1`);
      return p && p.samples === 3 ? p : undefined;
    }, 'three profile samples');
    assert.equal(profile.sumIterationsPerSecond, 2 + 2 + 4);
    assert.equal(profile.level, 'machine');
    // Progress never goes backwards, even when an older report arrives late.
    await send(progress(50, 0.5));
    await eventually(
      async () =>
        (await cp.profiles.listAll()).items.find((i) => i.signature === 'resnet50#64')?.samples === 4
          ? true
          : undefined,
      'the late sample',
    );
    assert.equal((await cp.jobs.get(jobId))?.progress, 300);
  });

  test('heartbeats record when the host was last heard and what it runs', async () => {
    const beat = (at: number): TelemetryMessage => ({
      type: 'heartbeat',
      hostId: 'host-1',
      at,
      appliedGeneration: 1,
      draining: false,
      evacuating: null,
      gpus: [
        { index: 0, utilization: 90, memoryUsedMiB: 1000 },
        { index: 1, utilization: 70, memoryUsedMiB: 1000 },
      ],
      jobs: [
        {
          jobId,
          jobGeneration: generation,
          phase: 'running',
          step: 300,
          checkpointStep: null,
          crashes: 0,
          workers: [],
        },
      ],
    });
    const before = (await cp.hosts.get('host-1'))!.lastHeartbeatAt!;
    await send(beat(1), beat(2));
    const host = await eventually(async () => {
      const h = await cp.hosts.get('host-1');
      return h?.actual && h.lastHeartbeatAt! > before ? h : undefined;
    }, 'the heartbeat');
    assert.equal(host.appliedGeneration, 1);
    assert.equal(host.actual?.gpuUtilization, 80);
    assert.deepEqual(
      host.actual?.jobs.map((j) => [j.jobId, j.phase, j.step]),
      [[jobId, 'running', 300]],
    );
  });

  test('checkpoint steps only grow', async () => {
    await send({
      type: 'checkpointed',
      hostId: 'host-1',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: generation,
      step: 250,
      uri: 'file:///c/step-250',
    });
    await eventually(
      async () => ((await cp.jobs.get(jobId))?.checkpointStep === 250 ? true : undefined),
      'checkpoint 250',
    );
    // Through the handler directly, so the assertion cannot run before the report was applied.
    const late = {
      type: 'stopped',
      hostId: 'host-1',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: generation,
      reason: 'rescale',
      checkpointStep: 100,
      timedOut: false,
    };
    assert.deepEqual(await direct(late), { batchItemFailures: [] });
    assert.equal((await cp.jobs.get(jobId))?.checkpointStep, 250);
  });

  test('a checkpoint proves its steps were done: progress rises to its step, never falls', async () => {
    const at = Date.now() / 1000;
    const checkpointed = (step: number) => ({
      type: 'checkpointed',
      hostId: 'host-1',
      at,
      jobId,
      jobGeneration: generation,
      step,
      uri: `file:///c/step-${step}`,
    });
    assert.equal((await cp.jobs.get(jobId))?.progress, 300);
    assert.deepEqual(await direct(checkpointed(450)), { batchItemFailures: [] });
    const raised = await cp.jobs.get(jobId);
    assert.deepEqual([raised?.checkpointStep, raised?.progress], [450, 450]);
    // A progress report past the checkpoint still counts; a checkpoint below the job's progress lowers nothing.
    await send(progress(480, 0.5));
    await eventually(
      async () => ((await cp.jobs.get(jobId))?.progress === 480 ? true : undefined),
      'progress 480',
    );
    assert.deepEqual(await direct(checkpointed(460)), { batchItemFailures: [] });
    const after = await cp.jobs.get(jobId);
    assert.deepEqual([after?.checkpointStep, after?.progress], [460, 480]);
  });

  test('a host speaks only for itself: impersonation and claims about other hosts’ jobs are rejected', async () => {
    await send(register('host-9', 4));
    await eventually(
      async () => ((await cp.hosts.get('host-9'))?.state === 'active' ? true : undefined),
      'host 9',
    );
    const finished = {
      type: 'finished',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: generation,
      step: 1000,
    };
    const drain = { type: 'spotInterruption', at: 1, action: 'terminate', noticeTime: null, checkpoints: [] };
    // Host 9 signs messages that claim to come from host 1.
    await direct({ ...finished, hostId: 'host-1' }, hostSender('host-9'));
    await direct({ ...drain, hostId: 'host-1' }, hostSender('host-9'));
    // Host 9 speaks for itself, but about a job placed on host 1.
    await direct({ ...finished, hostId: 'host-9' });
    // A sender that is not a host's role session at all.
    await direct({ ...finished, hostId: 'host-1' }, '000000000000');
    assert.equal((await cp.jobs.get(jobId))?.status, 'running', 'the job was not ended');
    assert.equal((await cp.hosts.get('host-1'))?.state, 'active', 'host 1 was not drained');
    const reasons = await rejections();
    assert.deepEqual(
      reasons.sort(),
      [
        `host host-9 does not hold job ${jobId}; its claim about the job is refused`,
        'sender "000000000000" is not a host\'s role session; telemetry must come from the host\'s instance role',
        'sender host-9 may not report for host host-1',
        'sender host-9 may not report for host host-1',
      ].sort(),
    );
  });

  test('only hosts the fleet launched or adopted may register: a phantom host is refused', async () => {
    await send(register('phantom', 8));
    const reasons = await eventually(async () => {
      const found = await rejections();
      return found.length > 0 ? found : undefined;
    }, 'the refused registration');
    assert.deepEqual(reasons, [
      'host phantom was neither launched by the fleet nor adopted as an instance tagged for the cluster; registration refused',
    ]);
    assert.equal(await cp.hosts.get('phantom'), undefined);
  });

  test('a finished job ends once, for its current generation only, and asks for an early round', async () => {
    await send({
      type: 'finished',
      hostId: 'host-1',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: generation - 1,
      step: 1000,
    });
    await send({
      type: 'finished',
      hostId: 'host-1',
      at: Date.now() / 1000,
      jobId,
      jobGeneration: generation,
      step: 1000,
    });
    const job = await eventually(async () => {
      const j = await cp.jobs.get(jobId);
      return j?.status === 'finished' ? j : undefined;
    }, 'the job to finish');
    assert.equal(job.progress, 1000);
    assert.equal(job.allocation, undefined);
    assert.ok(job.finishTime !== undefined);
    const events = await drainQueue(cp, cp.queueUrl('QueuesSchedulerEvents'));
    const kinds = events
      .map((m) => JSON.parse(m.body))
      .filter((e) => e.subject === jobId)
      .map((e) => e.kind);
    assert.deepEqual(
      kinds.filter((k) => k === 'completion'),
      ['completion'],
      'exactly one completion',
    );
    assert.ok(kinds.includes('completion'), JSON.stringify(kinds));
    const next = await round();
    assert.equal(next.jobWrites, 0);
    assert.deepEqual((await cp.hosts.get('host-1'))?.desired?.jobs, [], 'the next round empties the host');
  });

  test('malformed reports go to the telemetry DLQ with the reason; the rest of the batch is applied', async () => {
    await send(
      'not json',
      { type: 'progress', hostId: 'host-1', at: 1, jobId },
      { type: 'reboot', hostId: 'host-1', at: 1 },
      register('host-2', 2),
    );
    const reasons: string[] = [];
    await eventually(async () => {
      const { Messages } = await cp.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: cp.queueUrl('QueuesTelemetryDlq'),
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      for (const m of Messages ?? [])
        reasons.push(m.MessageAttributes?.[REJECTION_REASON_ATTRIBUTE]?.StringValue ?? '');
      return reasons.length >= 3 ? true : undefined;
    }, 'three rejected reports');
    assert.ok(reasons.some((r) => /must be JSON/.test(r)));
    assert.ok(
      reasons.some((r) => /jobGeneration/.test(r) && /step/.test(r)),
      reasons.join(' | '),
    );
    assert.ok(reasons.some((r) => /type/.test(r)));
    await eventually(
      async () => ((await cp.hosts.get('host-2'))?.state === 'active' ? true : undefined),
      'the valid registration',
    );
  });

  test('a host whose GPUs the catalog does not know is recorded but never scheduled', async () => {
    await send(
      register('odd-host', 1, {
        instanceType: null,
        gpus: [{ index: 0, uuid: 'u', name: 'Mystery GPU 9000', memoryTotalMiB: 1 }],
      } as Partial<TelemetryMessage>),
    );
    const host = await eventually(async () => {
      const h = await cp.hosts.get('odd-host');
      return h?.state === 'pending' ? undefined : h;
    }, 'the odd host');
    assert.equal(host.state, 'unsupported');
    assert.match(host.stateReason ?? '', /Mystery GPU 9000/);
  });

  test('a heartbeat from an unknown host changes nothing', async () => {
    const beat = {
      type: 'heartbeat',
      hostId: 'ghost',
      at: 1,
      appliedGeneration: null,
      draining: false,
      evacuating: null,
      gpus: [],
      jobs: [],
    };
    assert.deepEqual(await direct(beat), { batchItemFailures: [] });
    assert.equal(await cp.hosts.get('ghost'), undefined);
  });

  test('a host registers the address other hosts reach it at: the rendezvous of the jobs whose rank 0 it runs', async () => {
    await admitHosts(cp, 'gang-1');
    await send(register('gang-1', 4, { address: '10.0.7.21' } as Partial<TelemetryMessage>));
    const host = await eventually(async () => {
      const h = await cp.hosts.get('gang-1');
      return h?.state === 'active' ? h : undefined;
    }, 'the registered host');
    assert.equal(host.address, '10.0.7.21');
    const { body } = await submit(cp, jobDocument({ clientToken: 'rendezvous', gpus: 2 }));
    await round();
    const placed = await cp.jobs.get(body.job.jobId);
    const rank0Host = placed!.allocation!.slices[0]!.hostId;
    const part = (await cp.hosts.get(rank0Host))!.desired!.jobs.find((j) => j.jobId === placed!.jobId)!;
    const address = (await cp.hosts.get(rank0Host))!.address;
    assert.equal(part.masterAddr, address ?? rank0Host);
    assert.equal(part.masterPort, placed!.masterPort);
  });

  test('a gang broken on one of its hosts requeues the whole job once, from its checkpoint, with an early round', async () => {
    const { body } = await submit(cp, jobDocument({ clientToken: 'gang', gpus: 2 }));
    await round();
    const placed = (await cp.jobs.get(body.job.jobId))!;
    assert.equal(placed.status, 'running');
    const holder = placed.allocation!.slices[0]!.hostId;
    const stopped = (reason: string, jobGeneration: number, checkpointStep: number) => ({
      type: 'stopped',
      hostId: holder,
      at: Date.now() / 1000,
      jobId: placed.jobId,
      jobGeneration,
      reason,
      checkpointStep,
      timedOut: false,
    });
    // A stop for another reason, or of an older generation, leaves the job where it is.
    await send(stopped('rescale', placed.jobGeneration, 10), stopped('gang', placed.jobGeneration - 1, 10));
    await eventually(
      async () => ((await cp.jobs.get(placed.jobId))?.checkpointStep === 10 ? true : undefined),
      'the checkpoint of the rescale stop',
    );
    assert.equal((await cp.jobs.get(placed.jobId))?.status, 'running');
    await send(stopped('gang', placed.jobGeneration, 30));
    const requeued = await eventually(async () => {
      const j = await cp.jobs.get(placed.jobId);
      return j?.status === 'suspended' ? j : undefined;
    }, 'the gang requeued');
    assert.equal(requeued.allocation, undefined);
    assert.equal(requeued.masterPort, undefined);
    assert.equal(requeued.checkpointStep, 30);
    assert.equal(requeued.timeline?.at(-1)?.detail, `gang broken on host ${holder}; resumes from step 30`);
    await send(stopped('gang', placed.jobGeneration, 30)); // its other hosts say so too: nothing more happens
    const events = (await drainQueue(cp, cp.queueUrl('QueuesSchedulerEvents'))).map((m) =>
      JSON.parse(m.body),
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'gangBroken').map((e) => e.subject),
      [`${placed.jobId}/g${placed.jobGeneration}`],
    );
    await round();
    const again = (await cp.jobs.get(placed.jobId))!;
    assert.deepEqual(
      [again.status, again.jobGeneration, again.resumeStep],
      ['running', placed.jobGeneration + 1, 30],
    );
    // The requeued generation's host uploads its last checkpoint after the job was placed again: it still counts
    // (it is newer), an older one does not lower the record, and a host that never held the job is not heard.
    const late = (hostId: string, step: number) => ({
      type: 'checkpointed',
      hostId,
      at: Date.now() / 1000,
      jobId: placed.jobId,
      jobGeneration: placed.jobGeneration,
      step,
      uri: `s3://b/jobs/${placed.jobId}/checkpoints/step-${step}`,
    });
    assert.deepEqual(await direct(late(holder, 55)), { batchItemFailures: [] });
    assert.equal((await cp.jobs.get(placed.jobId))?.checkpointStep, 55);
    await direct(late(holder, 40));
    await direct(late('host-9', 99));
    assert.equal((await cp.jobs.get(placed.jobId))?.checkpointStep, 55);
    assert.deepEqual((await cp.jobs.get(placed.jobId))?.formerHolders, {
      jobGeneration: placed.jobGeneration,
      hostIds: [holder],
    });
  });
});
