// Worker crashes through the agent: back-off, restart from the last checkpoint, failure after N.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  type AgentHarness,
  agentHarness,
  assertNoOrphans,
  freePort,
  readStepLog,
  simJob,
  simJobs,
  sleep,
  tempDir,
  waitFor,
} from './helpers.ts';

async function withAgent(
  timings: Parameters<typeof agentHarness>[0]['timings'],
  body: (harness: AgentHarness, dir: string) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const harness = agentHarness({ stateDir: join(dir.path, 'state'), timings });
  try {
    await body(harness, dir.path);
  } finally {
    await harness.agent.drainAndStop();
    await assertNoOrphans(harness.pids);
    dir.cleanup();
  }
}

describe('worker crashes', () => {
  test('a job that keeps crashing is restarted with exponential back-off, then reported failed after N crashes', async () => {
    await withAgent({ maxCrashes: 3, backoffBaseMs: 150 }, async (harness, dir) => {
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'flaky',
          jobGeneration: 1,
          worldSize: 1,
          gpus: [0],
          totalSteps: 50,
          checkpointDir: join(dir, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 5,
          trainerArgs: ['--crash-at-step', '6'],
          env: { TESSERA_CHECKPOINT_EVERY: '4' },
        }),
      });
      await harness.agent.start();
      const failed = await waitFor(() => harness.telemetry.ofType('failed')[0], 'the job to fail', 15_000);
      assert.equal(failed.crashes, 3);
      assert.equal(failed.exitCode, 1);
      assert.match(failed.reason, /crashed 3 times \(last: exit code 1\): simulated crash at step 6/);

      const restarts = harness.telemetry.ofType('restarting');
      assert.deepEqual(
        restarts.map((message) => [message.crashes, message.backoffSeconds, message.exitCode]),
        [
          [1, 0.15, 1],
          [2, 0.3, 1],
        ],
      );
      const starts = harness.telemetry.ofType('started');
      assert.deepEqual(
        starts.map((message) => [message.attempt, message.resumeStep]),
        [
          [1, -1],
          [2, 4],
          [3, 4],
        ],
        'restarts resume from the last checkpoint (step 4)',
      );
      // The back-off really was waited for.
      for (const [index, restart] of restarts.entries()) {
        const next = starts[index + 1]!;
        assert.ok(
          next.at - restart.at >= restart.backoffSeconds - 0.001,
          `restart ${index + 1} waited ${next.at - restart.at} s`,
        );
      }
      await sleep(400);
      assert.equal(harness.telemetry.ofType('started').length, 3, 'a failed job is not restarted');
      assert.deepEqual(harness.agent.workerPids(), []);
    });
  });

  test('a crash of one worker restarts the whole job from the last checkpoint, and it then finishes', async () => {
    await withAgent({ backoffBaseMs: 50 }, async (harness, dir) => {
      const stepLog = join(dir, 'steps.log');
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'recovers',
          jobGeneration: 1,
          worldSize: 2,
          gpus: [0, 1],
          totalSteps: 30,
          checkpointDir: join(dir, 'ckpt'),
          masterPort: await freePort(),
          stepMs: 10,
          stepLog,
          trainerArgs: ['--crash-at-step', '13', '--crash-rank', '1', '--crash-times', '1'],
          env: { TESSERA_CHECKPOINT_EVERY: '5' },
        }),
      });
      await harness.agent.start();
      const finished = await waitFor(
        () => harness.telemetry.ofType('finished')[0],
        'the job to finish',
        15_000,
      );
      assert.equal(finished.step, 30);
      assert.deepEqual(
        harness.telemetry.ofType('restarting').map((message) => message.crashes),
        [1],
      );
      const second = harness.telemetry.ofType('started')[1];
      assert.equal(second?.resumeStep, 10, 'the newest complete checkpoint before the crash');
      // Steps 11-12 ran before the crash and are redone after it; nothing after step 10 is skipped.
      const log = readStepLog(stepLog);
      for (const rank of [0, 1]) {
        const steps = log.filter((line) => line.rank === rank).map((line) => line.step);
        const [first, rest] = [steps.slice(0, 12), steps.slice(12)];
        assert.deepEqual(
          first,
          Array.from({ length: 12 }, (_, i) => i + 1),
        );
        assert.deepEqual(
          rest,
          Array.from({ length: 20 }, (_, i) => i + 11),
        );
      }
    });
  });

  test('exit code 2 fails the job at once, with the trainer error', async () => {
    await withAgent({}, async (harness, dir) => {
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: simJobs({
          jobId: 'misconfigured',
          jobGeneration: 1,
          worldSize: 1,
          gpus: [0],
          totalSteps: 10,
          checkpointDir: join(dir, 'ckpt'),
          masterPort: await freePort(),
          env: { TESSERA_CONSISTENCY: 'D7' },
        }),
      });
      await harness.agent.start();
      const failed = await waitFor(() => harness.telemetry.ofType('failed')[0], 'the job to fail');
      assert.equal(failed.exitCode, 2);
      assert.equal(failed.crashes, 0);
      assert.match(failed.reason, /^bad configuration: TESSERA_CONSISTENCY: "D7" must be D0 or D1$/);
      assert.equal(harness.telemetry.ofType('restarting').length, 0);
      assert.equal(harness.telemetry.ofType('started').length, 1);
    });
  });

  test('a command that does not exist fails the job', async () => {
    await withAgent({}, async (harness, dir) => {
      const job = simJob({
        jobId: 'typo',
        jobGeneration: 1,
        worldSize: 1,
        gpus: [0],
        totalSteps: 10,
        checkpointDir: join(dir, 'ckpt'),
        masterPort: 29500,
      });
      harness.desired.set({
        hostId: 'host-a',
        generation: 1,
        jobs: [{ ...job, command: [join(dir, 'no-such-trainer')] }],
      });
      await harness.agent.start();
      const failed = await waitFor(() => harness.telemetry.ofType('failed')[0], 'the job to fail');
      assert.match(failed.reason, /worker could not be started: .*ENOENT/);
    });
  });
});
