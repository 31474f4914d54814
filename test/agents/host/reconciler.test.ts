import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CheckpointCatalog } from '../../../agents/host/checkpoint-catalog.ts';
import { type Effect, Reconciler, type ReconcilerConfig } from '../../../agents/host/reconciler.ts';
import type { DesiredJob, DesiredState } from '../../../lib/protocol/desired-state.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';

const CONFIG: ReconcilerConfig = {
  hostId: 'host-a',
  checkpointTimeoutMs: 1_000,
  maxCrashes: 3,
  backoffBaseMs: 100,
  backoffMaxMs: 1_000,
  progressIntervalMs: 0,
};

function desiredJob(jobGeneration: number, workers: number, overrides: Partial<DesiredJob> = {}): DesiredJob {
  const jobId = overrides.jobId ?? 'job-1';
  const base = {
    jobId,
    jobGeneration,
    worldSize: workers,
    totalSteps: 100,
    checkpointUri: `file:///ckpt/${jobId}`,
    resumeStep: -1,
    masterAddr: '127.0.0.1',
    masterPort: 29500,
    ...overrides,
  };
  return {
    ...base,
    command: ['trainer'],
    workers: Array.from({ length: workers }, (_, rank) => ({ rank, localRank: rank, gpuIndices: [rank] })),
  };
}

function desired(jobs: DesiredJob[], generation = 1, drain = false): DesiredState {
  return { hostId: 'host-a', generation, drain, stop: false, jobs };
}

/** A checkpoint store the test controls. */
function catalog(steps: Record<string, number> = {}): CheckpointCatalog & { steps: Record<string, number> } {
  return { steps, newestComplete: (uri) => steps[uri] ?? null };
}

const spawns = (effects: Effect[]) => effects.filter((e) => e.kind === 'spawn');
const signals = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'signal' ? [`${e.signal} ${e.ref}`] : []));
const messages = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'telemetry' ? [e.message] : []));
const types = (effects: Effect[]) => messages(effects).map((m) => m.type);
function message<T extends TelemetryMessage['type']>(
  effects: Effect[],
  type: T,
): Extract<TelemetryMessage, { type: T }> {
  const found = messages(effects).find((m) => m.type === type);
  assert.ok(found, `expected a ${type} message in ${types(effects).join(', ')}`);
  return found as Extract<TelemetryMessage, { type: T }>;
}

/** Applies the jobs and lets every worker report `started`. */
function started(reconciler: Reconciler, jobs: DesiredJob[], now = 0) {
  reconciler.applyDesired(desired(jobs));
  const effects = reconciler.reconcile(now);
  for (const spawn of spawns(effects)) {
    reconciler.handleReport(spawn.ref, { event: 'started', step: 0, rank: spawn.worker.rank }, now);
  }
  return effects;
}

describe('Reconciler', () => {
  test('does nothing before the first desired state (keeps whatever runs)', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    assert.deepEqual(reconciler.reconcile(0), []);
  });

  test('starts one worker per assigned GPU and reports it', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    const effects = started(reconciler, [desiredJob(1, 2)]);
    assert.deepEqual(
      spawns(effects).map((e) => [e.ref, e.resumeStep, e.worker.gpuIndices]),
      [
        ['job-1/g1/a1/r0', -1, [0]],
        ['job-1/g1/a1/r1', -1, [1]],
      ],
    );
    const start = message(effects, 'started');
    assert.deepEqual([start.hostId, start.jobGeneration, start.attempt, start.at], ['host-a', 1, 1, 0]);
    assert.deepEqual(reconciler.reconcile(10), [], 'level-triggered: nothing more to do');
  });

  test('rescale: checkpoint, confirm, then start the new generation from the confirmed step', () => {
    const store = catalog();
    const reconciler = new Reconciler(CONFIG, store);
    started(reconciler, [desiredJob(1, 4, { maxP: 4 })]);
    // The control plane's new placement still says resumeStep -1: it has not heard of any checkpoint.
    reconciler.applyDesired(desired([desiredJob(2, 2, { maxP: 4 })], 2));
    const stop = reconciler.reconcile(100);
    assert.deepEqual(
      signals(stop),
      [0, 1, 2, 3].map((r) => `SIGUSR2 job-1/g1/a1/r${r}`),
    );
    assert.equal(spawns(stop).length, 0, 'nothing new while the old generation runs');

    const checkpointed = reconciler.handleReport(
      'job-1/g1/a1/r0',
      { event: 'checkpoint', step: 42, uri: 'file:///ckpt/job-1/step-42' },
      150,
    );
    assert.deepEqual(
      [message(checkpointed, 'checkpointed').step, message(checkpointed, 'checkpointed').jobGeneration],
      [42, 1],
    );
    store.steps['file:///ckpt/job-1'] = 42;
    for (const rank of [0, 1, 2]) {
      const effects = reconciler.handleExit(`job-1/g1/a1/r${rank}`, { code: 75, signal: null }, 160);
      assert.equal(spawns(effects).length, 0, `rank ${rank} exited but others still run`);
      assert.equal(spawns(reconciler.reconcile(161)).length, 0);
    }
    const last = reconciler.handleExit('job-1/g1/a1/r3', { code: 75, signal: null }, 170);
    const stopped = message(last, 'stopped');
    assert.deepEqual([stopped.reason, stopped.checkpointStep, stopped.timedOut], ['rescale', 42, false]);
    assert.equal(
      types(last).filter((t) => t === 'checkpointed').length,
      0,
      'the same checkpoint is not reported twice',
    );
    const restart = reconciler.reconcile(170);
    assert.deepEqual(
      spawns(restart).map((e) => [e.ref, e.resumeStep, e.job.worldSize]),
      [
        ['job-1/g2/a2/r0', 42, 2],
        ['job-1/g2/a2/r1', 42, 2],
      ],
    );
    assert.equal(message(restart, 'started').resumeStep, 42);
  });

  test('a worker that has not reported started gets the stop request only once it has', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    reconciler.applyDesired(desired([desiredJob(1, 2)]));
    reconciler.reconcile(0);
    reconciler.handleReport('job-1/g1/a1/r0', { event: 'started', step: 0, rank: 0 }, 1);
    reconciler.applyDesired(desired([desiredJob(2, 2)], 2));
    assert.deepEqual(
      signals(reconciler.reconcile(2)),
      ['SIGUSR2 job-1/g1/a1/r0'],
      'rank 1 may not handle signals yet',
    );
    assert.deepEqual(
      signals(reconciler.handleReport('job-1/g1/a1/r1', { event: 'started', step: 0, rank: 1 }, 3)),
      ['SIGUSR2 job-1/g1/a1/r1'],
    );
    assert.deepEqual(
      signals(
        reconciler.handleReport(
          'job-1/g1/a1/r1',
          { event: 'progress', step: 1, stepTime: 1, samplesPerSecond: 1, rank: 1 },
          4,
        ),
      ),
      [],
    );
    // One that never starts is killed at the deadline like any other.
    assert.deepEqual(signals(reconciler.reconcile(1_002)).sort(), [
      'SIGKILL job-1/g1/a1/r0',
      'SIGKILL job-1/g1/a1/r1',
    ]);
  });

  test('a worker that misses the checkpoint deadline is killed; resume from the newest complete checkpoint', () => {
    const store = catalog({ 'file:///ckpt/job-1': 30 });
    const reconciler = new Reconciler(CONFIG, store);
    started(reconciler, [desiredJob(1, 2, { resumeStep: 30 })]);
    reconciler.applyDesired(desired([desiredJob(2, 1, { resumeStep: 30 })], 2));
    reconciler.reconcile(0);
    reconciler.handleExit('job-1/g1/a1/r1', { code: 75, signal: null }, 500);
    assert.deepEqual(signals(reconciler.reconcile(999)), []);
    const kill = reconciler.reconcile(1_000);
    assert.deepEqual(signals(kill), ['SIGKILL job-1/g1/a1/r0']);
    const end = reconciler.handleExit('job-1/g1/a1/r0', { code: null, signal: 'SIGKILL' }, 1_010);
    const stopped = message(end, 'stopped');
    assert.deepEqual([stopped.timedOut, stopped.checkpointStep], [true, 30]);
    assert.deepEqual(
      spawns(reconciler.reconcile(1_010)).map((e) => e.resumeStep),
      [30],
    );
  });

  test('crash: kill the peers, back off exponentially, resume from the last checkpoint, fail after N', () => {
    const store = catalog();
    const reconciler = new Reconciler(CONFIG, store);
    started(reconciler, [desiredJob(1, 2)]);
    reconciler.handleReport(
      'job-1/g1/a1/r0',
      { event: 'checkpoint', step: 10, uri: 'file:///ckpt/job-1/step-10' },
      5,
    );

    const crash = reconciler.handleExit('job-1/g1/a1/r1', { code: 1, signal: null }, 10);
    assert.deepEqual(signals(crash), ['SIGKILL job-1/g1/a1/r0']);
    const settled = reconciler.handleExit('job-1/g1/a1/r0', { code: null, signal: 'SIGKILL' }, 12);
    const restarting = message(settled, 'restarting');
    assert.deepEqual([restarting.crashes, restarting.exitCode, restarting.backoffSeconds], [1, 1, 0.1]);
    assert.equal(spawns(reconciler.reconcile(111)).length, 0, 'still backing off');
    const second = reconciler.reconcile(112);
    assert.deepEqual(
      spawns(second).map((e) => [e.ref, e.resumeStep]),
      [
        ['job-1/g1/a2/r0', 10],
        ['job-1/g1/a2/r1', 10],
      ],
    );

    reconciler.handleExit('job-1/g1/a2/r0', { code: null, signal: 'SIGSEGV' }, 200);
    const again = reconciler.handleExit('job-1/g1/a2/r1', { code: null, signal: 'SIGKILL' }, 201);
    assert.equal(message(again, 'restarting').backoffSeconds, 0.2, 'doubled');
    reconciler.reconcile(401);
    reconciler.handleReport('job-1/g1/a3/r0', { event: 'error', message: 'NCCL timeout' }, 402);
    reconciler.handleExit('job-1/g1/a3/r0', { code: 134, signal: null }, 410);
    const failed = reconciler.handleExit('job-1/g1/a3/r1', { code: null, signal: 'SIGKILL' }, 411);
    const failure = message(failed, 'failed');
    assert.equal(failure.crashes, 3);
    assert.equal(failure.exitCode, 134);
    assert.match(failure.reason, /crashed 3 times \(last: exit code 134\): NCCL timeout/);
    assert.deepEqual(reconciler.reconcile(5_000), [], 'a failed generation is not restarted');
    // A new placement of the job gets a fresh start.
    reconciler.applyDesired(desired([desiredJob(2, 1)], 2));
    const retry = reconciler.reconcile(6_000);
    assert.deepEqual(
      spawns(retry).map((e) => [e.ref, e.resumeStep]),
      [['job-1/g2/a4/r0', 10]],
    );
  });

  test('exit 2 (bad configuration) fails the job at once, without restarts', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 2)]);
    reconciler.handleReport(
      'job-1/g1/a1/r0',
      { event: 'error', message: 'TESSERA_TOTAL_STEPS is required' },
      1,
    );
    const exit = reconciler.handleExit('job-1/g1/a1/r0', { code: 2, signal: null }, 2);
    assert.deepEqual(signals(exit), ['SIGKILL job-1/g1/a1/r1']);
    const failed = reconciler.handleExit('job-1/g1/a1/r1', { code: null, signal: 'SIGKILL' }, 3);
    const failure = message(failed, 'failed');
    assert.equal(failure.reason, 'bad configuration: TESSERA_TOTAL_STEPS is required');
    assert.equal(failure.crashes, 0);
    assert.equal(types(failed).includes('restarting'), false);
  });

  test('a worker that cannot be spawned fails the job', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 1)]);
    const effects = reconciler.handleExit(
      'job-1/g1/a1/r0',
      { code: null, signal: null, spawnError: 'spawn nope ENOENT' },
      1,
    );
    assert.match(message(effects, 'failed').reason, /could not be started: spawn nope ENOENT/);
  });

  test('an exit 75 nobody asked for counts as a crash', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 1)]);
    const effects = reconciler.handleExit('job-1/g1/a1/r0', { code: 75, signal: null }, 1);
    assert.deepEqual(
      [message(effects, 'restarting').crashes, message(effects, 'restarting').exitCode],
      [1, 75],
    );
  });

  test('finished: all workers exit 0; never restarted; forgotten when the desired state drops it', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 2)]);
    reconciler.handleReport('job-1/g1/a1/r0', { event: 'finished', step: 100 }, 1);
    assert.deepEqual(reconciler.handleExit('job-1/g1/a1/r0', { code: 0, signal: null }, 2), []);
    const done = reconciler.handleExit('job-1/g1/a1/r1', { code: 0, signal: null }, 3);
    assert.deepEqual([message(done, 'finished').step], [100]);
    assert.deepEqual(reconciler.reconcile(4), []);
    reconciler.applyDesired(desired([], 2));
    assert.deepEqual(reconciler.reconcile(5), [{ kind: 'release', jobId: 'job-1' }]);
    assert.deepEqual(reconciler.jobSummaries(), []);
  });

  test('unassigned and drained jobs are checkpointed and stopped; lifting the drain resumes them', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 1), desiredJob(1, 1, { jobId: 'job-2' })]);
    reconciler.applyDesired(desired([desiredJob(1, 1)], 2, true));
    assert.deepEqual(signals(reconciler.reconcile(10)).sort(), [
      'SIGUSR2 job-1/g1/a1/r0',
      'SIGUSR2 job-2/g1/a1/r0',
    ]);
    reconciler.handleReport('job-1/g1/a1/r0', { event: 'checkpoint', step: 7, uri: 'u' }, 11);
    assert.equal(
      message(reconciler.handleExit('job-1/g1/a1/r0', { code: 75, signal: null }, 12), 'stopped').reason,
      'drain',
    );
    assert.equal(reconciler.draining, true);
    assert.deepEqual(spawns(reconciler.reconcile(13)), []);
    reconciler.applyDesired(desired([desiredJob(1, 1)], 3));
    const resumed = reconciler.reconcile(14);
    assert.deepEqual(
      spawns(resumed).map((e) => [e.ref, e.resumeStep]),
      [['job-1/g1/a2/r0', 7]],
    );
    // job-2 was stopped by the drain and is no longer desired at all: reported, then forgotten.
    const gone = reconciler.handleExit('job-2/g1/a1/r0', { code: 75, signal: null }, 15);
    assert.equal(message(gone, 'stopped').reason, 'drain');
    assert.deepEqual(reconciler.reconcile(16), [{ kind: 'release', jobId: 'job-2' }]);
  });

  test('a stop order (the control plane gave this host up) stops every job and starts none', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 1)]);
    reconciler.applyDesired({ ...desired([desiredJob(1, 1)], 2), stop: true });
    assert.deepEqual(signals(reconciler.reconcile(10)), ['SIGUSR2 job-1/g1/a1/r0']);
    reconciler.handleExit('job-1/g1/a1/r0', { code: 75, signal: null }, 11);
    assert.deepEqual(spawns(reconciler.reconcile(12)), [], 'nothing runs on a host that was given up');
  });

  test('Spot evacuation: stop everything before the deadline and start nothing afterwards', () => {
    const reconciler = new Reconciler({ ...CONFIG, checkpointTimeoutMs: 60_000 }, catalog());
    started(reconciler, [desiredJob(1, 1), desiredJob(1, 1, { jobId: 'job-2' })]);
    const evacuate = reconciler.evacuate('spot', 500, 100);
    assert.equal(signals(evacuate).length, 2);
    reconciler.handleReport('job-1/g1/a1/r0', { event: 'checkpoint', step: 9, uri: 'u' }, 200);
    reconciler.handleExit('job-1/g1/a1/r0', { code: 75, signal: null }, 210);
    assert.equal(reconciler.isQuiescent(), false);
    assert.deepEqual(spawns(reconciler.reconcile(300)), [], 'still desired, but the host is going away');
    assert.deepEqual(
      signals(reconciler.reconcile(500)),
      ['SIGKILL job-2/g1/a1/r0'],
      'the evacuation deadline caps the stop',
    );
    reconciler.handleExit('job-2/g1/a1/r0', { code: null, signal: 'SIGKILL' }, 510);
    assert.equal(reconciler.isQuiescent(), true);
    assert.deepEqual(reconciler.evacuationSummary(), [
      { jobId: 'job-1', jobGeneration: 1, step: 9, timedOut: false },
      { jobId: 'job-2', jobGeneration: 1, step: null, timedOut: true },
    ]);
    assert.deepEqual(spawns(reconciler.reconcile(10_000)), []);
  });

  test('a job backing off that is no longer desired is stopped, not restarted', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 1)]);
    reconciler.handleExit('job-1/g1/a1/r0', { code: 1, signal: null }, 1);
    reconciler.applyDesired(desired([], 2));
    const effects = reconciler.reconcile(1_000);
    assert.deepEqual(spawns(effects), []);
    assert.equal(message(effects, 'stopped').reason, 'unassigned');
  });

  test('progress: aggregated per job with GPU utilisation; stale incarnations are ignored', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 2)]);
    reconciler.observeGpuUtilization([
      { index: 0, utilization: 90 },
      { index: 1, utilization: 70 },
    ]);
    assert.deepEqual(
      reconciler.handleReport(
        'job-1/g1/a1/r0',
        { event: 'progress', step: 3, stepTime: 0.1, samplesPerSecond: 320, rank: 0 },
        5,
      ),
      [],
    );
    const effects = reconciler.handleReport(
      'job-1/g1/a1/r1',
      { event: 'progress', step: 3, stepTime: 0.1, samplesPerSecond: 320, rank: 1 },
      6,
    );
    const progress = message(effects, 'progress');
    assert.deepEqual(
      [progress.step, progress.stepTime, progress.samplesPerSecond, progress.gpuUtilization, progress.at],
      [3, 0.1, 640, 80, 0.006], // `at` in seconds: the reconciler clock is ms
    );
    assert.deepEqual(reconciler.handleReport('job-1/g0/a9/r0', { event: 'finished', step: 1 }, 7), []);
    assert.deepEqual(reconciler.handleExit('job-1/g0/a9/r0', { code: 1, signal: null }, 7), []);
  });

  test('a snapshot restores to the same state (what the agent persists)', () => {
    const reconciler = new Reconciler(CONFIG, catalog());
    started(reconciler, [desiredJob(1, 2)]);
    reconciler.handleReport('job-1/g1/a1/r0', { event: 'checkpoint', step: 5, uri: 'u' }, 1);
    const restored = new Reconciler(CONFIG, catalog(), JSON.parse(JSON.stringify(reconciler.snapshot())));
    assert.deepEqual(restored.runningRefs(), ['job-1/g1/a1/r0', 'job-1/g1/a1/r1']);
    assert.equal(restored.appliedGeneration, 1);
    restored.applyDesired(desired([desiredJob(2, 1)], 2));
    assert.equal(signals(restored.reconcile(2)).length, 2);
    assert.equal(restored.stopRequested('job-1/g1/a1/r0'), true);
    assert.throws(() => new Reconciler(CONFIG, catalog(), { appliedGeneration: 'x' } as never));
  });
});
