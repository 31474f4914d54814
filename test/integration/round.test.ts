// Scheduling rounds through the round handler: the lease, placement into host desired states, idempotence,
// convergence after a crash between writes, fencing, the fleet (launch, adopt, register, idle scale-in) and the
// EventBridge schedule.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDesiredStateSource } from '../../agents/host/ports/dynamodb-desired-state-source.ts';
import { createRoundHandler } from '../../functions/round/handler.ts';
import { LeaseLostError, writeFenced } from '../../lib/aws/dynamo/fenced-writes.ts';
import { Ec2Fleet } from '../../lib/aws/fleet/ec2-fleet.ts';
import { runRound } from '../../lib/aws/round/run-round.ts';
import { allocationGpuCount } from '../../lib/core/model/plan.ts';
import { createCompositePerfModel } from '../../lib/core/perf/composite.ts';
import { getPolicy } from '../../lib/core/policies.ts';
import { validateDesiredState } from '../../lib/protocol/desired-state.ts';
import {
  admitHosts,
  callApi,
  eventually,
  invokeRound,
  jobDocument,
  register,
  sendTelemetry,
  submit,
} from './support/fixtures.ts';
import { ACCOUNT, type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
/** When set, the round's DynamoDB client fails the transaction writing host desired states. */
let crashOnHostWrite = false;
let impossibleJob = '';

before(async () => {
  cp = await startControlPlane({
    context: { 'tessera:idleCooldownMinutes': 0, 'tessera:instanceFamilies': 'g5,g4dn' },
    runner: {
      factories: {
        round: (options) =>
          createRoundHandler({
            ...options,
            clients: {
              ...options.clients!,
              dynamodb: {
                send: (command: unknown) => {
                  const writesHosts =
                    command instanceof TransactWriteCommand &&
                    (command.input.TransactItems ?? []).some(
                      (i) =>
                        i.Update?.TableName === cp.hosts.tableName &&
                        JSON.stringify(i.Update).includes('"desired"'),
                    );
                  if (crashOnHostWrite && writesHosts)
                    return Promise.reject(new Error('injected crash between writes'));
                  return options.clients!.dynamodb.send(command as never);
                },
              } as never,
            },
          }),
      },
    },
  });
});
after(async () => {
  await cp?.stop();
});

const round = () => invokeRound(cp);
const telemetry = (...messages: unknown[]) => sendTelemetry(cp, ...messages);

describe('lease', () => {
  test('two concurrent rounds: exactly one holds the lease', async () => {
    const reports = await Promise.all([round(), round()]);
    assert.deepEqual(reports.map((r) => r.outcome).sort(), ['completed', 'skipped']);
    assert.equal((await cp.state.loadState()).storedRound, 1);
  });

  test('a round whose lease expired writes nothing', async () => {
    // (This job asks for a GPU no configured family offers: the next round fails it as unschedulable.)
    impossibleJob = (await submit(cp, jobDocument({ clientToken: 'fenced', gpuTypes: ['H100'] }))).body.job
      .jobId;
    let now = Date.now() / 1000;
    const clock = () => {
      now += 1; // every reading a second later (epoch seconds): the 0.5 s lease is over before the first write
      return now;
    };
    const before = await cp.state.loadState();
    await assert.rejects(
      runRound(
        {
          dynamodb: cp.clients.dynamodb,
          jobs: cp.jobs,
          hosts: cp.hosts,
          profiles: cp.profiles,
          state: cp.state,
          clock,
          log: { info() {}, warn() {}, error() {} },
        },
        {
          clusterName: 'tessera',
          policy: getPolicy('fifo'),
          perf: createCompositePerfModel({}),
          roundSeconds: 60,
          checkpointRoot: 'file:///tmp/x',
          holder: 'stale-round',
          leaseSeconds: 0.5,
          fleet: {
            capacityType: 'spot',
            budgetPerHour: 0,
            maxInstances: 0,
            maxLaunchesPerRound: 1,
            idleCooldownSeconds: 0,
            registrationTimeoutSeconds: 900,
            heartbeatTimeoutSeconds: 300,
            launchTemplates: [],
            subnetIds: [],
          },
        },
      ),
      LeaseLostError,
    );
    assert.equal((await cp.state.loadState()).storedRound, before.storedRound);
  });
});

describe('placement', () => {
  test('registered hosts get desired states the agent accepts; an unchanged round writes nothing', async () => {
    await admitHosts(cp, 'host-a', 'host-b');
    await telemetry(register('host-a'), register('host-b'));
    const a = await submit(cp, jobDocument({ clientToken: 'place-a', gpus: 4 }));
    const b = await submit(cp, jobDocument({ clientToken: 'place-b', gpus: 2 }));
    const first = await round();
    assert.equal(first.outcome, 'completed');
    assert.equal(first.actions.start, 2);
    let allocatedGpus = 0;
    for (const id of [a.body.job.jobId, b.body.job.jobId]) {
      const job = await cp.jobs.get(id);
      assert.equal(job?.status, 'running');
      assert.equal(job?.jobGeneration, 1);
      assert.equal(job?.placementLevel, 'machine');
      assert.ok(job?.allocation);
      allocatedGpus += allocationGpuCount(job.allocation);
    }
    // The default policy may give a job more than it asked for while nobody waits (Crius scales up to 2N).
    assert.ok(allocatedGpus >= 6 && allocatedGpus <= 8, `${allocatedGpus} GPUs allocated`);
    let workers = 0;
    for (const hostId of ['host-a', 'host-b']) {
      const host = await cp.hosts.get(hostId);
      if (!host?.desired) continue;
      const check = validateDesiredState(host.desired, {
        hostId,
        gpuIndices: [0, 1, 2, 3],
        lastAcceptedGeneration: null,
      });
      assert.ok(check.ok, check.ok ? '' : check.issues.join('; '));
      assert.equal(host.desiredGeneration, host.desired.generation);
      for (const job of host.desired.jobs) workers += job.workers.length;
      // The agent on EC2 reads the copy keyed by its instance ARN (all its role may read): the same document.
      const copy = await new DynamoDbDesiredStateSource(cp.clients.dynamodb, {
        tableName: cp.hosts.tableName,
        hostId: `arn:aws:ec2:${REGION}:${ACCOUNT}:instance/${hostId}`,
      }).read();
      assert.deepEqual(copy, host.desired);
    }
    assert.equal(workers, allocatedGpus, 'one worker per allocated GPU');
    const failed = await cp.jobs.get(impossibleJob);
    assert.equal(failed?.status, 'failed');
    assert.match(
      failed?.failureReason ?? '',
      /unschedulable: no configured instance family \(g5, g4dn\) offers an allowed GPU type \(H100\)/,
    );
    const again = await round();
    assert.equal(again.jobWrites, 0);
    assert.equal(again.hostWrites, 0);
  });

  test('a round that crashes between the job and host writes converges in the next round', async () => {
    await admitHosts(cp, 'host-c');
    await telemetry(register('host-c', 2));
    const { body } = await submit(cp, jobDocument({ clientToken: 'crash', gpus: 2 }));
    crashOnHostWrite = true;
    try {
      await assert.rejects(round(), /injected crash between writes/);
    } finally {
      crashOnHostWrite = false;
    }
    const job = await cp.jobs.get(body.job.jobId);
    assert.equal(job?.status, 'running', 'the job write happened');
    const hostId = job!.allocation!.slices[0]!.hostId;
    assert.ok(
      !(await cp.hosts.get(hostId))?.desired?.jobs.some((j) => j.jobId === job!.jobId),
      'the host write did not',
    );

    const next = await round();
    assert.equal(next.outcome, 'completed', 'the crashed round released its lease');
    assert.equal(next.jobWrites, 0, 'the job keeps its placement');
    const host = await cp.hosts.get(hostId);
    const placed = host?.desired?.jobs.find((j) => j.jobId === job!.jobId);
    assert.equal(placed?.workers.length, 2);
    assert.equal(placed?.jobGeneration, job!.jobGeneration);
    assert.equal((await round()).hostWrites, 0, 'converged: nothing left to write');
  });

  test('a cancelled running job is stopped by the next round', async () => {
    const running = (await cp.hosts.get('host-c'))!.desired!.jobs[0]!.jobId;
    const response = await callApi(cp, {
      method: 'DELETE',
      resource: '/jobs/{id}',
      pathParameters: { id: running },
    });
    assert.equal(response.status, 202);
    assert.equal(response.body.job.cancelRequested, true);
    await round();
    assert.equal((await cp.jobs.get(running))?.status, 'cancelled');
    assert.ok(!(await cp.hosts.get('host-c'))?.desired?.jobs.some((j) => j.jobId === running));
  });
});

describe('fleet', () => {
  test('launch for waiting jobs, adopt unrecorded instances, place on registration, terminate when idle', async () => {
    // A job whose GPU type no registered host has: the round launches a g4dn instance for it.
    const { body } = await submit(
      cp,
      jobDocument({ clientToken: 'needs-fleet', gpus: 1, gpuTypes: ['T4'], iterations: 5 }),
    );
    const launchRound = await round();
    assert.equal(launchRound.launched.length, 1, JSON.stringify(launchRound));
    const instanceId = launchRound.launched[0]!;
    const pending = await cp.hosts.get(instanceId);
    assert.equal(pending?.state, 'pending');
    assert.equal(pending?.instanceType, 'g4dn.xlarge');
    assert.equal(pending?.gpuType, 'T4');
    assert.equal(pending?.lifecycle, 'spot');
    if (cp.local) {
      const instance = cp.local.ec2.instances().find((i) => i.instanceId === instanceId);
      assert.equal(instance?.instanceLifecycle, 'spot');
      assert.ok(instance?.tags.some((t) => t.key === 'tessera:cluster' && t.value === 'tessera'));
      assert.ok(instance?.launchTemplate, 'launched from the stack’s launch template');
    }
    assert.equal((await round()).launched.length, 0, 'the booting instance counts as supply');

    // An instance some crashed round launched but never recorded is adopted.
    const launchTemplate = Object.values(cp.resources.resources).find((r) =>
      r.logicalId.startsWith('Fleetg5LaunchTemplate'),
    );
    const [orphan] = await new Ec2Fleet(cp.clients.ec2).launch({
      clusterName: 'tessera',
      launchTemplateId: launchTemplate!.id!,
      instanceType: 'g5.xlarge',
      gpuType: 'A10G',
      count: 1,
      lifecycle: 'on-demand',
      clientToken: 'orphan',
    });
    const adoptRound = await round();
    assert.deepEqual(adoptRound.adopted, [orphan!.instanceId]);

    // The agent registers: the job is placed on the new host.
    await telemetry(register(instanceId, 1, { instanceType: 'g4dn.xlarge' }));
    await round();
    const job = await cp.jobs.get(body.job.jobId);
    assert.equal(job?.allocation?.slices[0]?.hostId, instanceId);

    // It finishes; the host is idle past the (zero) cool-down and is terminated.
    await telemetry({
      type: 'finished',
      hostId: instanceId,
      at: Date.now() / 1000,
      jobId: job!.jobId,
      jobGeneration: job!.jobGeneration,
      step: 5,
    });
    assert.equal((await cp.jobs.get(job!.jobId))?.status, 'finished');
    await round(); // records the host as idle
    const scaleIn = await round();
    assert.ok(scaleIn.terminated.includes(instanceId), JSON.stringify(scaleIn));
    assert.equal((await cp.hosts.get(instanceId))?.state, 'lost');
    if (cp.local) {
      await eventually(() => {
        const state = cp.local!.ec2.instances().find((i) => i.instanceId === instanceId)?.state;
        return state === 'shutting-down' || state === 'terminated' ? state : undefined;
      }, 'the instance to terminate');
    }
  });
});

describe('schedule', {
  skip: process.env.AWS_ENDPOINT_URL ? 'needs the local endpoint’s event bus' : false,
}, () => {
  test('the schedule rule of the template runs a round through the event bus', async () => {
    const before = (await cp.state.loadState()).storedRound;
    cp.runner.attachEventBus(cp.local!.events);
    const rule = cp
      .local!.events.scheduledRules()
      .find((r) => r.rule.ScheduleExpression === 'rate(1 minute)');
    assert.ok(rule, 'the round schedule rule exists on the bus');
    cp.local!.events.fireSchedule(rule.rule.Name);
    await eventually(
      async () => ((await cp.state.loadState()).storedRound > before ? true : undefined),
      'a scheduled round',
    );
  });
});

describe('isolation', () => {
  test('a write DynamoDB refuses (an item over 400 KB) fails alone; the writes around it are applied', async () => {
    await admitHosts(cp, 'iso-1', 'iso-2', 'iso-3');
    const lease = (await cp.state.acquireLease('iso-test', Date.now() / 1000, 30))!;
    try {
      const note = (hostId: string, bytes: number) =>
        cp.hosts.roundWrite(hostId, { set: { stateReason: 'x'.repeat(bytes) } }, 0);
      const result = await writeFenced(cp.clients.dynamodb, cp.state.fence(lease, Date.now() / 1000), [
        note('iso-1', 10),
        note('iso-2', 450_000),
        note('iso-3', 10),
      ]);
      assert.deepEqual(result.written.sort(), ['host iso-1', 'host iso-3']);
      assert.deepEqual(
        result.failed?.map((f) => f.label),
        ['host iso-2'],
      );
      assert.match(result.failed?.[0]?.error ?? '', /size/i);
      assert.equal((await cp.hosts.get('iso-3'))?.stateReason, 'x'.repeat(10));
    } finally {
      await cp.state.releaseLease(lease);
    }
  });
});
