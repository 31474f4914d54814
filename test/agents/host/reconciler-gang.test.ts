// Gang semantics of the reconciler: a job spread over several hosts is stopped on this host as a whole when one
// of its workers fails or loses a peer, reported with reason `gang` (the control plane requeues the whole job),
// and never restarted here within the same generation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Effect, Reconciler, type ReconcilerConfig } from '../../../agents/host/reconciler.ts';
import type { DesiredJob, DesiredState } from '../../../lib/protocol/desired-state.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';
import { EXIT_GANG_BROKEN } from '../../../lib/protocol/worker-protocol.ts';

const CONFIG: ReconcilerConfig = {
  hostId: 'host-b',
  checkpointTimeoutMs: 60_000,
  maxCrashes: 3,
  backoffBaseMs: 100,
  backoffMaxMs: 1_000,
  progressIntervalMs: 0,
};
const noCheckpoints = { newestComplete: () => null };

/** Ranks `ranks` of a job of `worldSize` workers, on this host's GPUs 0, 1, … */
const job = (jobGeneration: number, worldSize: number, ranks: number[]): DesiredJob => ({
  jobId: 'gang',
  jobGeneration,
  worldSize,
  totalSteps: 100,
  checkpointUri: 'file:///ckpt/gang',
  resumeStep: -1,
  masterAddr: '10.0.0.7',
  masterPort: 29600,
  command: ['trainer'],
  workers: ranks.map((rank, localRank) => ({ rank, localRank, gpuIndices: [localRank] })),
});
const desired = (generation: number, jobs: DesiredJob[]): DesiredState => ({
  hostId: 'host-b',
  generation,
  drain: false,
  stop: false,
  jobs,
});

const refs = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'spawn' ? [e.ref] : []));
const kills = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'signal' && e.signal === 'SIGKILL' ? [e.ref] : []));
const sent = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'telemetry' ? [e.message] : []));
const ofType = <T extends TelemetryMessage['type']>(effects: Effect[], type: T) =>
  sent(effects).filter((m): m is Extract<TelemetryMessage, { type: T }> => m.type === type);

/** Starts the desired jobs and lets every worker report `started` at step 10. */
const run = (reconciler: Reconciler, state: DesiredState, now: number): string[] => {
  reconciler.applyDesired(state);
  const spawned = refs(reconciler.reconcile(now));
  for (const ref of spawned) reconciler.handleReport(ref, { event: 'started', step: 10, rank: 0 }, now);
  return spawned;
};

test('a peer lost (exit 76): the local part is killed, stopped with reason gang, not counted, not restarted', () => {
  const reconciler = new Reconciler(CONFIG, noCheckpoints);
  const [r2, r3] = run(reconciler, desired(1, [job(1, 4, [2, 3])]), 0);
  const exit = reconciler.handleExit(r2!, { code: EXIT_GANG_BROKEN, signal: null }, 100);
  assert.deepEqual(kills(exit), [r3], 'no rank keeps running alone');
  const settled = reconciler.handleExit(r3!, { code: null, signal: 'SIGKILL' }, 150);
  const [stopped] = ofType(settled, 'stopped');
  assert.deepEqual([stopped?.reason, stopped?.jobGeneration, stopped?.timedOut], ['gang', 1, false]);
  assert.equal(ofType(settled, 'restarting').length, 0);
  assert.deepEqual(refs(reconciler.reconcile(10_000)), [], 'the same generation is not restarted here');
  const [summary] = reconciler.jobSummaries();
  assert.deepEqual([summary?.phase, summary?.crashes], ['stopped', 0]);

  // The control plane placed the whole gang again: a new generation starts at once.
  reconciler.applyDesired(desired(2, [job(2, 4, [2, 3])]));
  assert.equal(refs(reconciler.reconcile(10_100)).length, 2);
});

test('a worker of the gang that crashes on its own is counted across placements: the job fails at maxCrashes', () => {
  const reconciler = new Reconciler(CONFIG, noCheckpoints);
  for (let generation = 1; generation <= 3; generation++) {
    const [r0, r1] = run(reconciler, desired(generation, [job(generation, 4, [0, 1])]), generation * 1000);
    // rank 1 crashes; its peer here notices first and exits 76: still one crash of this placement
    reconciler.handleExit(r0!, { code: EXIT_GANG_BROKEN, signal: null }, generation * 1000 + 1);
    const settled = reconciler.handleExit(r1!, { code: 1, signal: null }, generation * 1000 + 2);
    if (generation < 3) {
      assert.deepEqual(
        ofType(settled, 'stopped').map((m) => m.reason),
        ['gang'],
      );
      assert.equal(reconciler.jobSummaries()[0]?.crashes, generation);
    } else {
      const [failed] = ofType(settled, 'failed');
      assert.equal(failed?.crashes, 3);
      assert.match(failed?.reason ?? '', /crashed 3 times \(last: exit code 1\)/);
    }
  }
});

test('a job whose workers all run on this host still restarts locally after a crash', () => {
  const reconciler = new Reconciler(CONFIG, noCheckpoints);
  const [r0, r1] = run(reconciler, desired(1, [job(1, 2, [0, 1])]), 0);
  reconciler.handleExit(r0!, { code: EXIT_GANG_BROKEN, signal: null }, 10);
  const settled = reconciler.handleExit(r1!, { code: null, signal: 'SIGKILL' }, 20);
  assert.deepEqual(
    sent(settled).map((m) => m.type),
    ['restarting'],
  );
  assert.equal(refs(reconciler.reconcile(1_000)).length, 2);
});

test('stopping a job none of whose workers has started kills them at once (e.g. stuck in a rendezvous)', () => {
  const reconciler = new Reconciler(CONFIG, noCheckpoints);
  reconciler.applyDesired(desired(1, [job(1, 4, [2, 3])]));
  const spawned = refs(reconciler.reconcile(0));
  reconciler.applyDesired(desired(2, [])); // requeued by the control plane
  const effects = reconciler.reconcile(500);
  assert.deepEqual(kills(effects), spawned, 'not left running until the 60 s checkpoint deadline');
  let settled: Effect[] = [];
  for (const ref of spawned) settled = reconciler.handleExit(ref, { code: null, signal: 'SIGKILL' }, 600);
  assert.deepEqual(
    ofType(settled, 'stopped').map((m) => [m.reason, m.timedOut]),
    [['unassigned', false]],
  );
});

test('every host of a gang resumes from the desired resumeStep, whatever checkpoints it knows locally', () => {
  // This host uploaded (or listed) step 118 in storage; the control plane recorded step 100 for all hosts.
  const reconciler = new Reconciler(CONFIG, { newestComplete: () => 118 });
  const ranks = { ...job(3, 4, [2, 3]), resumeStep: 100 };
  reconciler.applyDesired(desired(3, [ranks]));
  const spawned = reconciler.reconcile(0).flatMap((e) => (e.kind === 'spawn' ? [e.resumeStep] : []));
  assert.deepEqual(spawned, [100, 100]);
  // A job whose ranks all run here still resumes from the newest complete checkpoint it knows.
  const alone = new Reconciler(CONFIG, { newestComplete: () => 118 });
  alone.applyDesired(desired(1, [{ ...job(1, 2, [0, 1]), jobId: 'alone', resumeStep: 100 }]));
  assert.deepEqual(
    alone.reconcile(0).flatMap((e) => (e.kind === 'spawn' ? [e.resumeStep] : [])),
    [118, 118],
  );
});
