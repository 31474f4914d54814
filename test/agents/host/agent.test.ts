// The agent shell: registration, heartbeats, rejected desired states, graceful drain.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { HostAgent, inferAdoptedExit } from '../../../agents/host/agent.ts';
import { SimulatedGpuDiscovery } from '../../../agents/host/discovery/simulated-gpus.ts';
import { FileDesiredStateSource } from '../../../agents/host/ports/desired-state-source.ts';
import { InMemoryTelemetrySink } from '../../../agents/host/ports/telemetry-sink.ts';
import { telemetryMessageSchema } from '../../../lib/protocol/telemetry.ts';
import {
  agentHarness,
  assertNoOrphans,
  FAST_TIMINGS,
  freePort,
  recordingLauncher,
  simJob,
  simJobs,
  sleep,
  tempDir,
  waitFor,
} from './helpers.ts';

describe('HostAgent', () => {
  test('registers, heartbeats with actual state, and every message matches the published schema', async () => {
    const dir = tempDir();
    const harness = agentHarness({
      stateDir: join(dir.path, 'state'),
      gpuCount: 4,
      timings: { heartbeatIntervalMs: 50 },
    });
    try {
      harness.desired.set({
        hostId: 'host-a',
        generation: 3,
        jobs: simJobs({
          jobId: 'j',
          jobGeneration: 1,
          worldSize: 1,
          gpus: [2],
          totalSteps: 10_000,
          checkpointDir: join(dir.path, 'ckpt'),
          masterPort: 29500,
        }),
      });
      await harness.agent.start();
      const register = harness.telemetry.ofType('register')[0];
      assert.ok(register);
      assert.deepEqual(
        [
          register.hostId,
          register.instanceType,
          register.gpus.length,
          register.gpus[0]?.name,
          register.topology?.rack,
        ],
        ['host-a', 'p4d.24xlarge', 4, 'NVIDIA A100-SXM4-40GB', 'nn-rack'],
      );
      const heartbeat = await waitFor(
        () => harness.telemetry.ofType('heartbeat').find((message) => message.jobs[0]?.step),
        'a heartbeat showing progress',
      );
      assert.equal(heartbeat.appliedGeneration, 3);
      assert.equal(heartbeat.gpus.length, 4);
      const [job] = heartbeat.jobs;
      assert.equal(job?.phase, 'running');
      assert.deepEqual(job?.workers[0]?.gpuIndices, [2]);
      assert.equal(job?.workers[0]?.pid, harness.agent.workerPids()[0]);
      for (const message of harness.telemetry.messages) telemetryMessageSchema.parse(message);
    } finally {
      await harness.agent.drainAndStop();
      await assertNoOrphans(harness.pids);
      dir.cleanup();
    }
  });

  test('a malformed desired state is rejected and reported once; the agent keeps running what it has', async () => {
    const dir = tempDir();
    const harness = agentHarness({ stateDir: join(dir.path, 'state'), gpuCount: 2 });
    try {
      const job = simJob({
        jobId: 'steady',
        jobGeneration: 1,
        worldSize: 1,
        gpus: [0],
        totalSteps: 10_000,
        checkpointDir: join(dir.path, 'ckpt'),
        masterPort: await freePort(),
      });
      harness.desired.set({ hostId: 'host-a', generation: 1, jobs: [job] });
      await harness.agent.start();
      await waitFor(() => harness.telemetry.ofType('progress').length > 0, 'progress');
      const pids = harness.agent.workerPids();

      // Generation 2 assigns a GPU this host does not have and drops a required field.
      const { totalSteps: _dropped, ...incomplete } = job;
      const onGpu7 = { ...job, jobGeneration: 2, workers: [{ ...job.workers[0]!, gpuIndices: [7] }] };
      harness.desired.set({
        hostId: 'host-a',
        generation: 2,
        jobs: [onGpu7, { ...incomplete, jobId: 'other' }],
      });
      const rejected = await waitFor(
        () => harness.telemetry.ofType('desiredStateRejected')[0],
        'the rejection',
      );
      assert.equal(rejected.generation, 2);
      assert.ok(
        rejected.issues.some(
          (issue) => issue === 'jobs[1].totalSteps: Invalid input: expected number, received undefined',
        ),
        rejected.issues.join('\n'),
      );
      await sleep(200); // ten more polls of the same bad document
      assert.equal(
        harness.telemetry.ofType('desiredStateRejected').length,
        1,
        'reported once, not on every poll',
      );
      assert.deepEqual(harness.agent.workerPids(), pids, 'the running worker was left alone');
      assert.equal(harness.telemetry.ofType('stopped').length, 0);

      const semantic = {
        hostId: 'host-a',
        generation: 3,
        jobs: [onGpu7],
      };
      harness.desired.set(semantic);
      const second = await waitFor(
        () => harness.telemetry.ofType('desiredStateRejected')[1],
        'the second rejection',
      );
      assert.deepEqual(second.issues, [
        'jobs[0].workers[0].gpuIndices: GPU 7 does not exist on this host (GPUs: 0, 1)',
      ]);

      // A valid document is applied; an older generation afterwards is stale.
      harness.desired.set({ hostId: 'host-a', generation: 4, jobs: [] });
      await waitFor(() => harness.telemetry.ofType('stopped')[0], 'the job to be stopped');
      harness.desired.set({ hostId: 'host-a', generation: 1, jobs: [job] });
      const stale = await waitFor(
        () => harness.telemetry.ofType('desiredStateRejected')[2],
        'the stale rejection',
      );
      assert.deepEqual(stale.issues, ['generation: 1 is older than the generation already applied (4)']);
      assert.equal(harness.telemetry.ofType('started').length, 1);
    } finally {
      await harness.agent.drainAndStop();
      await assertNoOrphans(harness.pids);
      dir.cleanup();
    }
  });

  test('a desired-state file that is not JSON is rejected with the file named', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'desired.json');
    writeFileSync(path, '{"hostId": "host-a", "generation": 1, "jobs": [');
    const telemetry = new InMemoryTelemetrySink();
    const { launcher } = recordingLauncher();
    const agent = new HostAgent({
      hostId: 'host-a',
      identity: { instanceId: null, instanceType: null, availabilityZone: null },
      topology: null,
      gpus: new SimulatedGpuDiscovery({ count: 1, type: 'T4' }),
      desiredState: new FileDesiredStateSource(path),
      telemetry,
      stateDir: join(dir.path, 'state'),
      timings: FAST_TIMINGS,
      launcher,
    });
    try {
      await agent.start();
      const rejected = await waitFor(() => telemetry.ofType('desiredStateRejected')[0], 'the rejection');
      assert.equal(rejected.generation, null);
      assert.match(
        rejected.issues[0]!,
        new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON`),
      );
    } finally {
      await agent.drainAndStop();
      dir.cleanup();
    }
  });

  test('graceful drain (SIGTERM): every worker checkpoints and stops, then the host reports drained', async () => {
    const dir = tempDir();
    const harness = agentHarness({ stateDir: join(dir.path, 'state') });
    try {
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: [
          simJob({
            jobId: 'a',
            jobGeneration: 5,
            worldSize: 2,
            gpus: [0, 1],
            totalSteps: 10_000,
            checkpointDir: join(dir.path, 'a'),
            masterPort: await freePort(),
          }),
          simJob({
            jobId: 'b',
            jobGeneration: 2,
            worldSize: 1,
            gpus: [2],
            totalSteps: 10_000,
            checkpointDir: join(dir.path, 'b'),
            masterPort: await freePort(),
          }),
        ],
      });
      await harness.agent.start();
      await waitFor(
        () => new Set(harness.telemetry.ofType('progress').map((m) => m.jobId)).size === 2,
        'both jobs running',
      );
      await harness.agent.drainAndStop();
      const drained = harness.telemetry.ofType('hostDrained')[0];
      assert.ok(drained);
      assert.deepEqual(
        drained.checkpoints.map((entry) => [
          entry.jobId,
          entry.jobGeneration,
          entry.timedOut,
          (entry.step ?? 0) > 0,
        ]),
        [
          ['a', 5, false, true],
          ['b', 2, false, true],
        ],
      );
      assert.deepEqual(harness.agent.workerPids(), []);
      const last = harness.telemetry.ofType('heartbeat').at(-1);
      assert.deepEqual(
        [last?.evacuating, last?.jobs.map((job) => job.phase)],
        ['shutdown', ['stopped', 'stopped']],
      );
    } finally {
      await assertNoOrphans(harness.pids);
      dir.cleanup();
    }
  });
});

test('inferAdoptedExit: what a re-adopted worker most likely exited with', () => {
  assert.deepEqual(inferAdoptedExit({ sawFinished: true, killed: false, stopRequested: true }), {
    code: 0,
    signal: null,
  });
  assert.deepEqual(inferAdoptedExit({ sawFinished: false, killed: true, stopRequested: true }), {
    code: null,
    signal: 'SIGKILL',
  });
  assert.deepEqual(inferAdoptedExit({ sawFinished: false, killed: false, stopRequested: true }), {
    code: 75,
    signal: null,
  });
  assert.deepEqual(inferAdoptedExit({ sawFinished: false, killed: false, stopRequested: false }), {
    code: null,
    signal: null,
  });
});
