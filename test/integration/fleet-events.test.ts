// EC2 events through EventBridge: a Spot interruption warning drains the host and requeues its jobs from their
// newest checkpoint; an instance that terminates makes its host lost. With the local endpoint the events come
// from its EC2 shim through the template's rules; against another endpoint the handler is invoked with the event.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { Ec2Fleet } from '../../lib/aws/fleet/ec2-fleet.ts';
import { SPOT_WARNING, STATE_CHANGE } from '../../lib/aws/fleet-events/apply-fleet-event.ts';
import {
  drainQueue,
  eventually,
  invokeRound,
  jobDocument,
  register,
  sendTelemetry,
  submit,
} from './support/fixtures.ts';
import { ACCOUNT, type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
let hosts: string[] = [];

before(async () => {
  // No launches of its own: the test launches the instances and the rounds adopt them.
  cp = await startControlPlane({ context: { 'tessera:budgetPerHour': 0 } });
  if (cp.local) cp.runner.attachEventBus(cp.local.events);
});
after(async () => {
  await cp?.stop();
});

const round = () => invokeRound(cp);
const telemetry = (...messages: unknown[]) => sendTelemetry(cp, ...messages);

/** Delivers an EC2 event: by the real path locally, directly to the handler elsewhere. */
const ec2Event = async (detailType: string, detail: Record<string, string>, trigger: () => unknown) => {
  if (cp.local) {
    trigger();
    return;
  }
  await cp.runner.invoke('fleet-events', {
    version: '0',
    id: 'e',
    'detail-type': detailType,
    source: 'aws.ec2',
    account: ACCOUNT,
    time: new Date().toISOString(),
    region: REGION,
    resources: [],
    detail,
  });
};

describe('fleet events', () => {
  test('setup: two Spot instances of the cluster, adopted and registered; a job on one of them', async () => {
    const launchTemplate = Object.values(cp.resources.resources).find(
      (r) => r.type === 'AWS::EC2::LaunchTemplate',
    )!;
    const instances = await new Ec2Fleet(cp.clients.ec2).launch({
      clusterName: 'tessera',
      launchTemplateId: launchTemplate.id!,
      instanceType: 'g5.12xlarge',
      gpuType: 'A10G',
      count: 2,
      lifecycle: 'spot',
      clientToken: 'setup',
    });
    hosts = instances.map((i) => i.instanceId);
    assert.deepEqual([...(await round()).adopted].sort(), [...hosts].sort());
    await telemetry(register(hosts[0]!, 4));
    const { body } = await submit(cp, jobDocument({ clientToken: 'spot-victim', gpus: 4 }));
    await round();
    const job = await cp.jobs.get(body.job.jobId);
    assert.equal(job?.allocation?.slices[0]?.hostId, hosts[0]);
    await telemetry({
      type: 'checkpointed',
      hostId: hosts[0],
      at: Date.now() / 1000,
      jobId: job!.jobId,
      jobGeneration: job!.jobGeneration,
      step: 40,
      uri: 'x',
    });
    await telemetry(register(hosts[1]!, 4));
    await drainQueue(cp, cp.queueUrl('QueuesSchedulerEvents'));
  });

  test('a Spot warning drains the host and requeues its jobs from their last checkpoint', async () => {
    const [victim, spare] = hosts as [string, string];
    const jobId = (await cp.hosts.get(victim))!.desired!.jobs[0]!.jobId;
    const before = (await cp.jobs.get(jobId))!;
    await ec2Event(SPOT_WARNING, { 'instance-id': victim, 'instance-action': 'terminate' }, () =>
      cp.local!.ec2.interruptSpot(victim, { noticeMs: 60_000 }),
    );
    // The host is drained first, then its jobs are requeued: wait for both.
    await eventually(
      async () => ((await cp.jobs.get(jobId))?.status === 'suspended' ? true : undefined),
      'the job to be requeued',
    );
    const host = (await cp.hosts.get(victim))!;
    assert.equal(host.state, 'draining');
    assert.equal(host.desired?.drain, true, 'the agent is told to checkpoint and stop everything');
    assert.equal(host.desiredGeneration, 2);
    const requeued = await cp.jobs.get(jobId);
    assert.equal(requeued?.status, 'suspended');
    assert.equal(requeued?.allocation, undefined);
    const kinds = (await drainQueue(cp, cp.queueUrl('QueuesSchedulerEvents'))).map(
      (m) => JSON.parse(m.body).kind,
    );
    assert.ok(kinds.includes('hostDraining'));

    // The next round restarts the job on the other host, resuming from step 40, as a new generation.
    await round();
    const moved = await cp.jobs.get(jobId);
    assert.equal(moved?.status, 'running');
    assert.equal(moved?.allocation?.slices[0]?.hostId, spare);
    assert.equal(moved?.resumeStep, 40);
    assert.equal(moved?.jobGeneration, before.jobGeneration + 1);
    const jobs = (await cp.hosts.get(spare))!.desired!.jobs;
    assert.ok(jobs.length > 0 && jobs.every((j) => j.jobId === jobId && j.resumeStep === 40));
    const drained = await cp.hosts.get(victim);
    assert.equal(drained?.desired?.drain, true);
    assert.deepEqual(drained?.desired?.jobs, [], 'the round also empties the draining host');
  });

  test('an instance that terminates makes its host lost and requeues its jobs', async () => {
    const spare = hosts[1]!;
    const jobId = (await cp.hosts.get(spare))!.desired!.jobs[0]!.jobId;
    await ec2Event(STATE_CHANGE, { 'instance-id': spare, state: 'terminated' }, () =>
      cp.clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [spare] })),
    );
    await eventually(
      async () => ((await cp.jobs.get(jobId))?.status === 'suspended' ? true : undefined),
      'the job to be requeued',
    );
    const host = (await cp.hosts.get(spare))!;
    assert.equal(host.state, 'lost');
    assert.match(host.stateReason ?? '', /instance (shutting-down|terminated)/);
    const job = await cp.jobs.get(jobId);
    assert.equal(job?.status, 'suspended');
    assert.equal(job?.resumeStep, 40);
  });

  test('events about unknown instances and harmless states change nothing', async () => {
    const outcome = await cp.runner.invoke<{ result: string }>('fleet-events', {
      version: '0',
      id: 'x',
      'detail-type': STATE_CHANGE,
      source: 'aws.ec2',
      account: ACCOUNT,
      time: '',
      region: REGION,
      resources: [],
      detail: { 'instance-id': 'i-unknown', state: 'terminated' },
    });
    assert.equal(outcome.result, 'ignored');
    const other = await cp.runner.invoke('fleet-events', {
      'detail-type': 'Something Else',
      source: 'aws.ec2',
      detail: {},
    });
    assert.equal(other, undefined);
  });
});
