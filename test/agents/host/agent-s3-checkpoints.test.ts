// Checkpoints on S3 through the real agent, the simulated trainer and the local endpoint's S3: one job is
// rescaled, preempted, migrated to another host (another agent with its own disk) and interrupted by Spot,
// each time resuming from the step the agent uploaded, and ends in the state of a run never stopped.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { SpotNotice } from '../../../agents/host/discovery/imds.ts';
import type { DesiredJob } from '../../../lib/protocol/desired-state.ts';
import {
  type AgentHarness,
  agentHarness,
  assertNoOrphans,
  fileUri,
  freePort,
  readStepLog,
  SIM_TRAINER,
  type SimJobOptions,
  simJob,
  tempDir,
  waitFor,
} from './helpers.ts';
import { type LocalS3, startLocalS3 } from './s3-staging.ts';

const JOB_ID = 'sim-s3';
const TOTAL_STEPS = 90;
let s3: LocalS3;

before(async () => {
  s3 = await startLocalS3();
});
after(async () => {
  await s3?.stop();
});

function job(options: Omit<SimJobOptions, 'jobId' | 'totalSteps' | 'checkpointDir'>): DesiredJob {
  return {
    ...simJob({
      ...options,
      jobId: JOB_ID,
      maxP: 4,
      totalSteps: TOTAL_STEPS,
      checkpointDir: '/unused',
      stepMs: 15,
    }),
    checkpointUri: s3.checkpointUri(JOB_ID),
  };
}

const ESTS_ON = (workers: number): number[][] =>
  Array.from({ length: workers }, (_, rank) =>
    Array.from({ length: 4 / workers }, (_, i) => rank * (4 / workers) + i),
  );

/** Waits until the job's newest progress (any generation ≥ `generation`) reached `step`. */
const progressed = (harness: AgentHarness, generation: number, step: number) =>
  waitFor(
    () => harness.telemetry.ofType('progress').some((m) => m.jobGeneration === generation && m.step >= step),
    `generation ${generation} at step ${step}`,
    15_000,
  );

test('sim trainer: resume through S3 after a rescale, a preemption, a migration and a Spot interruption', {
  timeout: 60_000,
}, async (t) => {
  const dir = tempDir('tessera-agent-s3-');
  const stepLog = join(dir.path, 'steps.log');
  let spot: SpotNotice | null = null;
  const pids = new Set<number>();
  const stagingA = s3.staging(join(dir.path, 'a'));
  const stagingB = s3.staging(join(dir.path, 'b'));
  const a = agentHarness({
    hostId: 'host-a',
    stateDir: join(dir.path, 'a'),
    pids,
    checkpointStaging: stagingA,
  });
  const b = agentHarness({
    hostId: 'host-b',
    stateDir: join(dir.path, 'b'),
    pids,
    spotNotices: { spotNotice: async () => spot },
    checkpointStaging: stagingB,
  });
  const uri = s3.checkpointUri(JOB_ID);
  const common = { stepLog };
  const inS3 = () => s3.store.newestComplete(uri);
  try {
    // 1. Rescale on host A: 4 GPUs → 2 GPUs; the desired resumeStep is stale (-1).
    const port1 = await freePort();
    a.desired.set({
      hostId: 'host-a',
      generation: 1,
      jobs: [
        job({
          ...common,
          jobGeneration: 1,
          worldSize: 4,
          gpus: [0, 1, 2, 3],
          ests: ESTS_ON(4),
          masterPort: port1,
        }),
      ],
    });
    await a.agent.start();
    await progressed(a, 1, 8);
    const port2 = await freePort();
    a.desired.set({
      hostId: 'host-a',
      generation: 2,
      jobs: [
        job({ ...common, jobGeneration: 2, worldSize: 2, gpus: [4, 5], ests: ESTS_ON(2), masterPort: port2 }),
      ],
    });
    const restart2 = await waitFor(
      () => a.telemetry.ofType('started').find((m) => m.jobGeneration === 2),
      'generation 2 started',
      15_000,
    );
    const confirmed1 = a.telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 1)!;
    assert.equal(confirmed1.uri, `${uri}/step-${confirmed1.step}`, 'the confirmed checkpoint names S3');
    assert.equal(restart2.resumeStep, confirmed1.step);
    assert.ok((await inS3())! >= confirmed1.step, 'the rescale checkpoint is in S3');
    const stagedA = stagingA.localDir(uri);
    assert.ok(
      existsSync(join(stagedA, `step-${confirmed1.step}`, 'COMPLETE')),
      'the trainer wrote it locally',
    );

    // 2. Preemption on host A: the job is taken off (its local copy released), later placed back.
    await progressed(a, 2, restart2.resumeStep + 8);
    a.desired.set({ hostId: 'host-a', generation: 3, jobs: [] });
    const stopped2 = await waitFor(
      () => a.telemetry.ofType('stopped').find((m) => m.jobGeneration === 2),
      'generation 2 preempted',
      15_000,
    );
    assert.equal(stopped2.reason, 'unassigned');
    assert.equal(await inS3(), stopped2.checkpointStep, 'the preemption checkpoint is the newest in S3');
    await waitFor(() => !existsSync(stagedA), 'host A to drop its local copy', 5_000);
    const port3 = await freePort();
    a.desired.set({
      hostId: 'host-a',
      generation: 4,
      jobs: [
        job({
          ...common,
          jobGeneration: 3,
          worldSize: 2,
          gpus: [0, 1],
          ests: ESTS_ON(2),
          masterPort: port3,
          resumeStep: stopped2.checkpointStep!,
        }),
      ],
    });
    const restart3 = await waitFor(
      () => a.telemetry.ofType('started').find((m) => m.jobGeneration === 3),
      'generation 3 started',
    );
    assert.equal(restart3.resumeStep, stopped2.checkpointStep);
    await progressed(a, 3, restart3.resumeStep + 8);

    // 3. Migration A → B: B has never seen the job; it downloads the step A uploaded.
    a.desired.set({ hostId: 'host-a', generation: 5, jobs: [] });
    const stopped3 = await waitFor(
      () => a.telemetry.ofType('stopped').find((m) => m.jobGeneration === 3),
      'generation 3 stopped on A',
      15_000,
    );
    const port4 = await freePort();
    b.desired.set({
      hostId: 'host-b',
      generation: 1,
      jobs: [
        job({
          ...common,
          jobGeneration: 4,
          worldSize: 1,
          gpus: [2],
          ests: ESTS_ON(1),
          masterPort: port4,
          resumeStep: stopped3.checkpointStep!,
        }),
      ],
    });
    await b.agent.start();
    const restart4 = await waitFor(
      () => b.telemetry.ofType('started').find((m) => m.jobGeneration === 4),
      'generation 4 started on B',
    );
    assert.equal(restart4.resumeStep, stopped3.checkpointStep);
    await progressed(b, 4, restart4.resumeStep + 8);
    assert.ok(existsSync(join(stagingB.localDir(uri), `step-${restart4.resumeStep}`, 'COMPLETE')));

    // 4. Spot interruption on B: the evacuation report names a step that is already in S3.
    spot = { action: 'terminate', time: Date.now() + 10_000 };
    const interruption = await waitFor(
      () => b.telemetry.ofType('spotInterruption')[0],
      'the Spot report',
      15_000,
    );
    const spotStep = interruption.checkpoints.find((c) => c.jobId === JOB_ID)?.step;
    assert.ok(spotStep !== undefined && spotStep !== null && spotStep > restart4.resumeStep);
    assert.equal(await inS3(), spotStep, 'the Spot checkpoint was uploaded before it was reported');
    const port5 = await freePort();
    a.desired.set({
      hostId: 'host-a',
      generation: 6,
      jobs: [
        job({
          ...common,
          jobGeneration: 5,
          worldSize: 2,
          gpus: [6, 7],
          ests: ESTS_ON(2),
          masterPort: port5,
          resumeStep: spotStep,
        }),
      ],
    });
    const finished = await waitFor(() => a.telemetry.ofType('finished')[0], 'the job to finish', 20_000);
    assert.deepEqual([finished.jobGeneration, finished.step], [5, TOTAL_STEPS]);
    t.diagnostic(
      `resumed at ${[restart2, restart3, restart4].map((m) => m.resumeStep).join(', ')}, ${spotStep} (of ${TOTAL_STEPS})`,
    );

    // Every step trained exactly once across the five generations (rank 0's log), in order…
    const log = readStepLog(stepLog).filter((line) => line.rank === 0);
    assert.deepEqual(
      log.map((line) => line.step),
      Array.from({ length: TOTAL_STEPS }, (_, i) => i + 1),
    );
    // …and the final state is that of a run that was never stopped.
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
        TESSERA_TOTAL_STEPS: String(TOTAL_STEPS),
        TESSERA_CHECKPOINT_URI: fileUri(join(dir.path, 'reference')),
      },
    });
    pids.add(straight.pid!);
    assert.equal((await once(straight, 'exit'))[0], 0);
    assert.equal(log.at(-1)!.state, readStepLog(reference).at(-1)!.state);
  } finally {
    await Promise.all([a.agent.drainAndStop(), b.agent.drainAndStop()]);
    await assertNoOrphans(pids);
    dir.cleanup();
  }
});
