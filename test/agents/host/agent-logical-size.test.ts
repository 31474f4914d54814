// A non-elastic 4-GPU job under the default `tessera` policy, whose Crius allocation may halve or double it: its
// logical size L = 8 is fixed at the first placement, and the desired states the round derives from its Jobs item
// (lib/aws/round/desired-states.ts) drive the real agent and PyTorch trainer at 4, then 2, then 8 workers. The run
// must end bitwise equal to one never resized (docs/trainer-protocol.md, logical size). Skipped without torch.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { JobItem } from '../../../lib/aws/items/job-item.ts';
import { checkpointUriOf, jobsByHost } from '../../../lib/aws/round/desired-states.ts';
import { jobChangesFromActions } from '../../../lib/aws/round/job-transitions.ts';
import { logicalSizeFor } from '../../../lib/aws/round/logical-size.ts';
import type { Action } from '../../../lib/core/model/action.ts';
import { evenEsts } from '../../../lib/core/plugins/easyscale/even-ests.ts';
import { tessera } from '../../../lib/core/plugins/tessera/policy.ts';
import { allocation, jobItem } from '../../lib/aws/support/items.ts';
import {
  type AgentHarness,
  agentHarness,
  assertNoOrphans,
  fileUri,
  freePort,
  tempDir,
  waitFor,
} from './helpers.ts';
import {
  checkpointDifference,
  PYTHON,
  PYTHON_WORKER_ENV,
  readCheckpointMeta,
  runStraight,
  SMALL_CNN_ARGS,
  torchMissingReason,
} from './python-trainer.ts';

const JOB_ID = 'plain-4';
const TOTAL_STEPS = 240;
const SKIP_REASON = torchMissingReason();
const clock = { now: 1_000 };
/**
 * The job names no per-EST batch: the trainer takes spec.batchSize 64 over L = 8, i.e. 8 per EST, which is what the
 * reference run is given explicitly (SMALL_CNN_ARGS) — bitwise equality checks that division too.
 */
const WITHOUT_BATCH_ARGS = SMALL_CNN_ARGS.filter(
  (arg, i, all) => arg !== '--batch-size' && all[i - 1] !== '--batch-size',
);

/** The round's view of one placement decision: the Jobs item after it, with a rendezvous port. */
function placed(item: JobItem, action: Action, masterPort: number): JobItem {
  const [change] = jobChangesFromActions(
    new Map([[item.jobId, item]]),
    [action],
    clock,
    () => undefined,
    () => 'machine',
    (job) => logicalSizeFor(job.spec, tessera.allocate),
  );
  assert.ok(change, `${action.kind} changes the job`);
  return { ...change.next, masterPort };
}

function desiredFor(item: JobItem, root: string, generation: number) {
  const jobs = jobsByHost([item], () => '127.0.0.1', root).get('host-a') ?? [];
  return { hostId: 'host-a', generation, jobs };
}

function progressed(harness: AgentHarness, jobGeneration: number, step: number): boolean {
  const failed = harness.telemetry.ofType('failed')[0];
  if (failed) throw new Error(`job failed: ${failed.reason}`);
  return harness.telemetry
    .ofType('progress')
    .some((m) => m.jobGeneration === jobGeneration && m.step >= step);
}

test('a non-elastic job resized 4 → 2 → 8 GPUs by the default policy resumes each time and ends bitwise equal to an unresized run', {
  skip: SKIP_REASON ?? false,
  timeout: 240_000,
}, async (t) => {
  const dir = tempDir('tessera-agent-logical-');
  const root = fileUri(join(dir.path, 'ckpt'));
  const checkpointDir = fileURLToPath(checkpointUriOf(root, JOB_ID));
  const harness = agentHarness({ stateDir: join(dir.path, 'state') });
  const [port1, port2, port3] = [await freePort(), await freePort(), await freePort()];
  try {
    const submitted = jobItem(JOB_ID, {
      spec: { ...jobItem(JOB_ID).spec, gpus: 4, batchSize: 64, iterations: TOTAL_STEPS },
      launch: {
        command: [PYTHON, '-m', 'tessera_trainer.run', ...WITHOUT_BATCH_ARGS],
        env: PYTHON_WORKER_ENV,
      },
    });
    const at4 = placed(
      submitted,
      { kind: 'start', jobId: JOB_ID, allocation: allocation([['host-a', [0, 1, 2, 3]]]), resumeStep: -1 },
      port1,
    );
    assert.equal(at4.logicalWorkers, 8, 'L = the most GPUs tessera may give a 4-GPU job');
    const first = desiredFor(at4, root, 1);
    assert.equal(first.jobs[0]?.maxP, 8);
    harness.desired.set(first);
    await harness.agent.start();
    await waitFor(() => progressed(harness, 1, 5) || undefined, 'five steps on 4 workers', 60_000);

    const rescale = (from: JobItem, gpus: number[], port: number): JobItem =>
      placed(
        from,
        {
          kind: 'rescale',
          jobId: JOB_ID,
          from: from.allocation!,
          to: allocation([['host-a', gpus]]),
          resumeStep: -1,
        },
        port,
      );
    const at2 = rescale(at4, [4, 5], port2);
    assert.equal(at2.logicalWorkers, 8, 'L never changes after the first placement');
    harness.desired.set(desiredFor(at2, root, 2));
    const firstStop = await waitFor(
      () => harness.telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 1),
      'the 4-worker checkpoint',
      60_000,
    );
    await waitFor(
      () => progressed(harness, 2, firstStop.step + 5) || undefined,
      'five steps on 2 workers',
      60_000,
    );

    const at8 = rescale(at2, [0, 1, 2, 3, 4, 5, 6, 7], port3);
    harness.desired.set(desiredFor(at8, root, 3));
    const finished = await waitFor(
      () => {
        progressed(harness, 3, 0);
        return harness.telemetry.ofType('finished')[0];
      },
      'the job to finish on 8 workers',
      90_000,
    );
    assert.deepEqual([finished.jobGeneration, finished.step], [3, TOTAL_STEPS]);
    const secondStop = harness.telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 2);
    assert.ok(secondStop && secondStop.step > firstStop.step && secondStop.step < TOTAL_STEPS);
    t.diagnostic(
      `resized at steps ${firstStop.step} (4 → 2) and ${secondStop.step} (2 → 8) of ${TOTAL_STEPS}`,
    );
    const started = harness.telemetry.ofType('started').map((m) => [m.jobGeneration, m.resumeStep]);
    assert.deepEqual(started, [
      [1, -1],
      [2, firstStop.step],
      [3, secondStop.step],
    ]);
    assert.equal(readCheckpointMeta({ dir: checkpointDir, step: firstStop.step }).writtenBy.worldSize, 4);
    assert.equal(readCheckpointMeta({ dir: checkpointDir, step: secondStop.step }).writtenBy.worldSize, 2);
    assert.equal(readCheckpointMeta({ dir: checkpointDir, step: TOTAL_STEPS }).writtenBy.worldSize, 8);

    const referenceDir = join(dir.path, 'reference');
    const reference = await runStraight({
      jobId: JOB_ID,
      maxP: 8,
      ests: evenEsts(8, 4).map((ests) => [...ests]),
      totalSteps: TOTAL_STEPS,
      checkpointDir: referenceDir,
      pids: harness.pids,
      timeoutMs: 90_000,
    });
    assert.deepEqual(reference.codes, [0, 0, 0, 0], `reference run failed:\n${reference.stderr.join('\n')}`);
    const difference = await checkpointDifference(
      { dir: checkpointDir, step: TOTAL_STEPS },
      { dir: referenceDir, step: TOTAL_STEPS },
    );
    assert.equal(difference, null, `final checkpoint differs from the unresized run at ${difference}`);
  } finally {
    await harness.agent.drainAndStop();
    await assertNoOrphans(harness.pids);
    dir.cleanup();
  }
});
