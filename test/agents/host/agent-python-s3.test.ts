// The PyTorch EasyScale trainer with checkpoints on S3 (the local endpoint's s3rver): rescaled 4×1 → 2×2 ESTs on
// host A, interrupted by Spot there, and resumed on host B (another agent, another disk) from the step A
// uploaded. The final checkpoint, read back from S3, must be bitwise equal to a run never stopped. Skipped
// without torch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { SpotNotice } from '../../../agents/host/discovery/imds.ts';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';
import { type AgentHarness, agentHarness, assertNoOrphans, freePort, tempDir, waitFor } from './helpers.ts';
import {
  checkpointDifference,
  type PythonJobOptions,
  pythonJob,
  readCheckpointMeta,
  runStraight,
  torchMissingReason,
} from './python-trainer.ts';
import { type LocalS3, startLocalS3 } from './s3-staging.ts';

const JOB_ID = 'small-cnn-s3';
const MAX_P = 4;
/** Long enough that the rescale and the Spot notice land inside the run (≈ 10 ms a step here). */
const TOTAL_STEPS = 120;
const SKIP_REASON = torchMissingReason();
let s3: LocalS3;

before(async () => {
  if (!SKIP_REASON) s3 = await startLocalS3();
});
after(async () => {
  await s3?.stop();
});

function job(options: Omit<PythonJobOptions, 'jobId' | 'maxP' | 'totalSteps' | 'checkpointDir'>): DesiredJob {
  return {
    ...pythonJob({
      ...options,
      jobId: JOB_ID,
      maxP: MAX_P,
      totalSteps: TOTAL_STEPS,
      checkpointDir: '/unused',
    }),
    checkpointUri: s3.checkpointUri(JOB_ID),
  };
}

function waitForJob<T>(harness: AgentHarness, probe: () => T | undefined, what: string, timeoutMs = 30_000) {
  return waitFor(
    () => {
      const failed = harness.telemetry.ofType('failed')[0];
      if (failed) throw new Error(`job failed (${failed.reason}) while waiting for ${what}`);
      return probe();
    },
    what,
    timeoutMs,
  );
}

test('python trainer: rescale and Spot interruption through S3, resumed on another host, bitwise equal to an unstopped run', {
  skip: SKIP_REASON ?? false,
  timeout: 120_000,
}, async (t) => {
  const dir = tempDir('tessera-agent-python-s3-');
  const pids = new Set<number>();
  let spot: SpotNotice | null = null;
  const a = agentHarness({
    hostId: 'host-a',
    stateDir: join(dir.path, 'a'),
    pids,
    spotNotices: { spotNotice: async () => spot },
    checkpointStaging: s3.staging(join(dir.path, 'a')),
  });
  const stagingB = s3.staging(join(dir.path, 'b'));
  const b = agentHarness({
    hostId: 'host-b',
    stateDir: join(dir.path, 'b'),
    pids,
    checkpointStaging: stagingB,
  });
  const uri = s3.checkpointUri(JOB_ID);
  try {
    a.desired.set({
      hostId: 'host-a',
      generation: 1,
      jobs: [
        job({
          jobGeneration: 1,
          gpus: [0, 1, 2, 3],
          ests: [[0], [1], [2], [3]],
          resumeStep: -1,
          masterPort: await freePort(),
        }),
      ],
    });
    await a.agent.start();
    await waitForJob(
      a,
      () => a.telemetry.ofType('progress').some((m) => m.jobGeneration === 1 && m.step >= 5),
      'gen 1',
    );

    // Rescale on A; the desired resumeStep is stale (-1).
    a.desired.set({
      hostId: 'host-a',
      generation: 2,
      jobs: [
        job({
          jobGeneration: 2,
          gpus: [4, 5],
          ests: [
            [0, 1],
            [2, 3],
          ],
          resumeStep: -1,
          masterPort: await freePort(),
        }),
      ],
    });
    const restart2 = await waitForJob(
      a,
      () => a.telemetry.ofType('started').find((m) => m.jobGeneration === 2),
      'gen 2',
    );
    const rescaleStep = a.telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 1)!.step;
    assert.equal(restart2.resumeStep, rescaleStep);
    await waitForJob(
      a,
      () => a.telemetry.ofType('progress').some((m) => m.jobGeneration === 2 && m.step >= rescaleStep + 5),
      'gen 2 training',
    );

    // Spot on A: the step it reports is in S3 by then; B resumes from it with one worker holding every EST.
    spot = { action: 'terminate', time: Date.now() + 20_000 };
    const interruption = await waitForJob(
      a,
      () => a.telemetry.ofType('spotInterruption')[0],
      'the Spot report',
    );
    const spotStep = interruption.checkpoints.find((c) => c.jobId === JOB_ID)!.step!;
    assert.ok(spotStep > rescaleStep && spotStep < TOTAL_STEPS, `Spot checkpoint at ${spotStep}`);
    assert.equal(await s3.store.newestComplete(uri), spotStep);
    b.desired.set({
      hostId: 'host-b',
      generation: 1,
      jobs: [
        job({
          jobGeneration: 3,
          gpus: [0],
          ests: [[0, 1, 2, 3]],
          resumeStep: spotStep,
          masterPort: await freePort(),
        }),
      ],
    });
    await b.agent.start();
    const finished = await waitForJob(
      b,
      () => b.telemetry.ofType('finished')[0],
      'the job to finish on B',
      60_000,
    );
    assert.deepEqual([finished.jobGeneration, finished.step], [3, TOTAL_STEPS]);
    t.diagnostic(`rescaled at step ${rescaleStep}, Spot at ${spotStep}, of ${TOTAL_STEPS}`);

    // Read the final step back from S3 into a fresh directory and compare it with an unstopped run.
    const fromS3 = join(dir.path, 'from-s3');
    await s3.store.download(uri, TOTAL_STEPS, join(fromS3, `step-${TOTAL_STEPS}`));
    const final = readCheckpointMeta({ dir: fromS3, step: TOTAL_STEPS });
    assert.deepEqual([final.generation, final.writtenBy.worldSize], [3, 1]);
    const referenceDir = join(dir.path, 'reference');
    const reference = await runStraight({
      jobId: JOB_ID,
      maxP: MAX_P,
      ests: [[0], [1], [2], [3]],
      totalSteps: TOTAL_STEPS,
      checkpointDir: referenceDir,
      pids,
      timeoutMs: 60_000,
    });
    assert.deepEqual(reference.codes, [0, 0, 0, 0], `reference run failed:\n${reference.stderr.join('\n')}`);
    const difference = await checkpointDifference(
      { dir: fromS3, step: TOTAL_STEPS },
      { dir: referenceDir, step: TOTAL_STEPS },
    );
    assert.equal(difference, null, `final checkpoint differs from the unstopped run at ${difference}`);
  } finally {
    await Promise.all([a.agent.drainAndStop(), b.agent.drainAndStop()]);
    await assertNoOrphans(pids);
    dir.cleanup();
  }
});
