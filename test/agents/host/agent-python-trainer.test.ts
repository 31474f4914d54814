// The host agent drives the real PyTorch EasyScale trainer (agents/trainer) through a rescale from
// 4 workers × 1 EST to 2 workers × 2 ESTs. With D1 consistency the rescaled job must end with exactly
// the bits of a run that was never rescaled (docs/trainer-protocol.md §5). Skipped without torch.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseReportLine, type WorkerReport } from '../../../lib/protocol/worker-protocol.ts';
import { type AgentHarness, agentHarness, assertNoOrphans, freePort, tempDir, waitFor } from './helpers.ts';
import {
  checkpointDifference,
  pythonJob,
  readCheckpointMeta,
  runStraight,
  torchMissingReason,
} from './python-trainer.ts';

const JOB_ID = 'small-cnn';
const MAX_P = 4;
/** Enough steps (≈ 10 ms each here) that the rescale lands well inside the run, few enough to stay fast. */
const TOTAL_STEPS = 150;
const SKIP_REASON = torchMissingReason();

/** Report lines the workers of one generation printed, read from the agent's log files. */
function workerReports(stateDir: string, jobGeneration: number): WorkerReport[] {
  const logDir = join(stateDir, 'logs');
  const prefix = encodeURIComponent(`${JOB_ID}/g${jobGeneration}/`);
  return readdirSync(logDir)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.out'))
    .flatMap((file) => readFileSync(join(logDir, file), 'utf8').split('\n'))
    .map(parseReportLine)
    .flatMap((parsed) => (parsed.kind === 'report' ? [parsed.report] : []));
}

/** The workers' stderr (tracebacks, `tessera-trainer:` logs), for failure messages. */
function workerStderr(stateDir: string): string {
  const logDir = join(stateDir, 'logs');
  return readdirSync(logDir)
    .filter((file) => file.endsWith('.err'))
    .map(
      (file) => `--- ${decodeURIComponent(file)}\n${readFileSync(join(logDir, file), 'utf8').slice(-2_000)}`,
    )
    .join('\n');
}

/** Waits for `probe`, failing at once (with the workers' stderr) if the agent gives the job up. */
function waitForJob<T>(harness: AgentHarness, probe: () => T | undefined, what: string, timeoutMs: number) {
  return waitFor(
    () => {
      const failed = harness.telemetry.ofType('failed')[0];
      if (failed) {
        throw new Error(
          `job failed (${failed.reason}) while waiting for ${what}\n${workerStderr(harness.stateDir)}`,
        );
      }
      return probe();
    },
    what,
    timeoutMs,
  );
}

test('python trainer: rescale 4×1 → 2×2 ESTs through the agent resumes at the checkpoint and ends bitwise equal to an unrescaled run', {
  skip: SKIP_REASON ?? false,
  timeout: 90_000,
}, async (t) => {
  const dir = tempDir('tessera-agent-python-');
  const checkpointDir = join(dir.path, 'ckpt');
  const referenceDir = join(dir.path, 'reference');
  const harness = agentHarness({ stateDir: join(dir.path, 'state') });
  // A new generation is a new rendezvous; it gets its own port, as a scheduler would hand out.
  const [firstPort, secondPort] = [await freePort(), await freePort()];
  const common = { jobId: JOB_ID, maxP: MAX_P, totalSteps: TOTAL_STEPS, checkpointDir };
  try {
    harness.desired.set({
      hostId: 'host-a',
      generation: 1,
      jobs: [
        pythonJob({
          ...common,
          jobGeneration: 1,
          gpus: [0, 1, 2, 3],
          ests: [[0], [1], [2], [3]],
          resumeStep: -1,
          masterPort: firstPort,
        }),
      ],
    });
    await harness.agent.start();
    await waitForJob(
      harness,
      () => harness.telemetry.ofType('progress').some((m) => m.jobGeneration === 1 && m.step >= 5),
      'five steps on 4 workers',
      30_000,
    );

    // The scheduler moves the job to 2 GPUs with 2 ESTs each. Its resumeStep is stale (-1): it has
    // not yet heard of the checkpoint this very rescale is about to take.
    harness.desired.set({
      hostId: 'host-a',
      generation: 2,
      jobs: [
        pythonJob({
          ...common,
          jobGeneration: 2,
          gpus: [4, 5],
          ests: [
            [0, 1],
            [2, 3],
          ],
          resumeStep: -1,
          masterPort: secondPort,
        }),
      ],
    });
    const finished = await waitForJob(
      harness,
      () => harness.telemetry.ofType('finished')[0],
      'the job to finish',
      30_000,
    );
    assert.deepEqual([finished.jobGeneration, finished.step], [2, TOTAL_STEPS]);

    // The rescale checkpoint was confirmed through telemetry before generation 2 started from it.
    const telemetry = harness.telemetry.messages;
    const checkpointed = harness.telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 1);
    const stopped = harness.telemetry.ofType('stopped').find((m) => m.jobGeneration === 1);
    const restart = harness.telemetry.ofType('started').find((m) => m.jobGeneration === 2);
    assert.ok(checkpointed, 'generation 1 confirmed a checkpoint');
    assert.ok(stopped && restart, 'generation 1 stopped and generation 2 started');
    const step = checkpointed.step;
    assert.ok(step >= 5 && step < TOTAL_STEPS, `rescale checkpoint at step ${step} lies inside the run`);
    t.diagnostic(`rescaled at step ${step} of ${TOTAL_STEPS}`);
    assert.deepEqual([stopped.reason, stopped.checkpointStep, stopped.timedOut], ['rescale', step, false]);
    assert.ok(telemetry.indexOf(checkpointed) < telemetry.indexOf(restart));
    assert.equal(restart.resumeStep, step, 'resumed from the confirmed checkpoint, not the stale desired -1');
    assert.deepEqual(
      restart.workers.map((worker) => worker.gpuIndices),
      [[4], [5]],
    );

    // The trainer itself says so: generation 2's workers loaded that checkpoint and ran the ESTs asked.
    const started = workerReports(harness.stateDir, 2).filter((report) => report.event === 'started');
    assert.deepEqual(
      started
        .map((report) => [report.rank, report.step, report.ests])
        .sort(([a], [b]) => Number(a) - Number(b)),
      [
        [0, step, [0, 1]],
        [1, step, [2, 3]],
      ],
    );
    const rescaled = readCheckpointMeta({ dir: checkpointDir, step });
    assert.deepEqual([rescaled.generation, rescaled.writtenBy.worldSize], [1, 4]);
    const final = readCheckpointMeta({ dir: checkpointDir, step: TOTAL_STEPS });
    assert.deepEqual([final.generation, final.writtenBy.worldSize], [2, 2]);

    // The same job run straight through on 4 workers, never stopped.
    const reference = await runStraight({
      jobId: JOB_ID,
      maxP: MAX_P,
      ests: [[0], [1], [2], [3]],
      totalSteps: TOTAL_STEPS,
      checkpointDir: referenceDir,
      pids: harness.pids,
      timeoutMs: 30_000,
    });
    assert.deepEqual(reference.codes, [0, 0, 0, 0], `reference run failed:\n${reference.stderr.join('\n')}`);
    assert.deepEqual(readCheckpointMeta({ dir: referenceDir, step: TOTAL_STEPS }).writtenBy.worldSize, 4);

    const difference = await checkpointDifference(
      { dir: checkpointDir, step: TOTAL_STEPS },
      { dir: referenceDir, step: TOTAL_STEPS },
    );
    assert.equal(difference, null, `final checkpoint differs from the unrescaled run at ${difference}`);
    // The comparison does see differences: the rescale checkpoint is not the trained model.
    assert.notEqual(
      await checkpointDifference({ dir: checkpointDir, step }, { dir: referenceDir, step: TOTAL_STEPS }),
      null,
    );
  } finally {
    await harness.agent.drainAndStop();
    await assertNoOrphans(harness.pids);
    dir.cleanup();
  }
});
