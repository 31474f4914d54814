// Rescaling a running job through the agent with real simulated-trainer processes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  agentHarness,
  assertNoOrphans,
  fileUri,
  freePort,
  readStepLog,
  SIM_TRAINER,
  type StepLogLine,
  simJobs,
  tempDir,
  waitFor,
} from './helpers.ts';

/** Steps one rank logged, in order. */
function stepsOf(log: StepLogLine[], generation: number, rank: number): number[] {
  return log.filter((line) => line.generation === generation && line.rank === rank).map((line) => line.step);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

test('rescale 4 → 2 GPUs keeps progress: resume at the checkpoint step, no step lost or repeated', async () => {
  const dir = tempDir();
  const checkpointDir = join(dir.path, 'ckpt');
  const stepLog = join(dir.path, 'steps.log');
  const port = await freePort();
  const harness = agentHarness({ stateDir: join(dir.path, 'state') });
  const totalSteps = 60;
  const common = {
    jobId: 'elastic',
    maxP: 4,
    totalSteps,
    checkpointDir,
    masterPort: port,
    stepMs: 20,
    stepLog,
  };
  try {
    harness.desired.set({
      hostId: 'host-a',
      generation: 1,
      jobs: simJobs({
        ...common,
        jobGeneration: 1,
        worldSize: 4,
        gpus: [0, 1, 2, 3],
        ests: [[0], [1], [2], [3]],
      }),
    });
    await harness.agent.start();
    await waitFor(
      () => harness.telemetry.ofType('progress').some((message) => message.step >= 10),
      'ten steps on 4 GPUs',
    );

    // The scheduler moves the job to 2 GPUs. Its resumeStep is stale (-1): it has not yet heard of
    // the checkpoint this very rescale is about to take.
    harness.desired.set({
      hostId: 'host-a',
      generation: 2,
      jobs: simJobs({
        ...common,
        jobGeneration: 2,
        worldSize: 2,
        gpus: [4, 5],
        ests: [
          [0, 1],
          [2, 3],
        ],
        resumeStep: -1,
      }),
    });
    const finished = await waitFor(
      () => harness.telemetry.ofType('finished')[0],
      'the job to finish',
      20_000,
    );
    assert.deepEqual([finished.jobGeneration, finished.step], [2, totalSteps]);

    // The checkpoint was confirmed to the scheduler before the new generation started from it.
    const telemetry = harness.telemetry.messages;
    const checkpointed = telemetry.find((m) => m.type === 'checkpointed' && m.jobGeneration === 1);
    const stopped = harness.telemetry.ofType('stopped')[0];
    const restart = harness.telemetry.ofType('started').find((m) => m.jobGeneration === 2);
    assert.ok(checkpointed?.type === 'checkpointed' && stopped && restart);
    const step = checkpointed.step;
    assert.ok(step >= 10 && step < totalSteps);
    assert.deepEqual([stopped.reason, stopped.checkpointStep, stopped.timedOut], ['rescale', step, false]);
    assert.equal(restart.resumeStep, step, 'resumed from the confirmed checkpoint, not the stale desired -1');
    assert.ok(telemetry.indexOf(checkpointed) < telemetry.indexOf(restart));
    assert.ok(existsSync(join(checkpointDir, `step-${step}`, 'COMPLETE')));
    assert.deepEqual(
      restart.workers.map((worker) => worker.gpuIndices),
      [[4], [5]],
    );

    // The trainer's own step log: every global step exactly once per rank, generation 1 up to the
    // checkpoint, generation 2 from the step after it to the end.
    const log = readStepLog(stepLog);
    for (const rank of [0, 1, 2, 3])
      assert.deepEqual(stepsOf(log, 1, rank), range(1, step), `gen 1 rank ${rank}`);
    for (const rank of [0, 1])
      assert.deepEqual(stepsOf(log, 2, rank), range(step + 1, totalSteps), `gen 2 rank ${rank}`);
    assert.equal(log.filter((line) => line.generation === 2 && line.rank > 1).length, 0);

    // Never two generations at once: generation 2's first step comes after generation 1's last.
    const lastOfOld = Math.max(...log.filter((line) => line.generation === 1).map((line) => line.time));
    const firstOfNew = Math.min(...log.filter((line) => line.generation === 2).map((line) => line.time));
    assert.ok(lastOfOld <= firstOfNew);
    const oldPids = new Set(log.filter((line) => line.generation === 1).map((line) => line.pid));
    const newPids = new Set(log.filter((line) => line.generation === 2).map((line) => line.pid));
    assert.equal(oldPids.size, 4);
    assert.equal(newPids.size, 2);

    // Same final model state as a run that was never rescaled.
    const reference = join(dir.path, 'reference.log');
    const straight = spawn(process.execPath, [SIM_TRAINER, '--step-ms', '0', '--step-log', reference], {
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH ?? '',
        TESSERA_JOB_ID: 'reference',
        TESSERA_RANK: '0',
        TESSERA_WORLD_SIZE: '1',
        TESSERA_MAX_P: '4',
        TESSERA_ESTS: '0,1,2,3',
        TESSERA_TOTAL_STEPS: String(totalSteps),
        TESSERA_CHECKPOINT_URI: fileUri(join(dir.path, 'reference')),
      },
    });
    harness.pids.add(straight.pid!);
    assert.equal((await once(straight, 'exit'))[0], 0);
    assert.equal(
      log.filter((line) => line.generation === 2).at(-1)!.state,
      readStepLog(reference).at(-1)!.state,
    );
  } finally {
    await harness.agent.drainAndStop();
    await assertNoOrphans(harness.pids);
    dir.cleanup();
  }
});
