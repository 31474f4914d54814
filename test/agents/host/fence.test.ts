// The fencing rule (pure) and the reconciler acting on it: out of contact past the fence, every worker is asked to
// checkpoint and stop, killed after the grace, reported `stopped (fenced)`, and nothing starts again until a newer
// desired-state generation comes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { liftsFence, mustFence, secondsOutOfContact, withContact } from '../../../agents/host/fence.ts';
import { type Effect, Reconciler } from '../../../agents/host/reconciler.ts';
import type { DesiredJob, DesiredState } from '../../../lib/protocol/desired-state.ts';

const TERMS = { afterSeconds: 24, graceSeconds: 3 };

describe('the fencing rule', () => {
  test('the older proof of contact counts', () => {
    assert.equal(secondsOutOfContact({ telemetryAt: 100, desiredStateAt: 90 }, 120), 30);
    assert.equal(secondsOutOfContact({ telemetryAt: 80, desiredStateAt: 119 }, 120), 40);
  });

  test('fences only past the terms, and never without terms', () => {
    const contact = { telemetryAt: 100, desiredStateAt: 100 };
    assert.equal(mustFence(TERMS, contact, 124), false, 'exactly at the fence: not yet');
    assert.equal(mustFence(TERMS, contact, 124.01), true);
    assert.equal(mustFence(null, contact, 10_000), false);
    assert.equal(
      mustFence(TERMS, { telemetryAt: 1_000, desiredStateAt: 100 }, 125),
      true,
      'reads lost alone',
    );
    assert.equal(
      mustFence(TERMS, { telemetryAt: 100, desiredStateAt: 1_000 }, 125),
      true,
      'sends lost alone',
    );
  });

  test('only a newer generation lifts a fence; proofs never go back', () => {
    assert.equal(liftsFence(7, 7), false);
    assert.equal(liftsFence(7, 8), true);
    assert.equal(liftsFence(null, 0), true);
    const contact = { telemetryAt: 50, desiredStateAt: 60 };
    assert.deepEqual(withContact(contact, 'telemetryAt', 40), contact);
    assert.deepEqual(withContact(contact, 'telemetryAt', 70), { telemetryAt: 70, desiredStateAt: 60 });
  });
});

const CONFIG = {
  hostId: 'host-a',
  checkpointTimeoutMs: 300_000,
  maxCrashes: 3,
  backoffBaseMs: 100,
  backoffMaxMs: 1_000,
  progressIntervalMs: 0,
};
const job = (jobGeneration: number): DesiredJob => ({
  jobId: 'job-1',
  jobGeneration,
  worldSize: 2,
  totalSteps: 100,
  checkpointUri: 'file:///ckpt/job-1',
  resumeStep: -1,
  masterAddr: '127.0.0.1',
  masterPort: 29500,
  command: ['trainer'],
  workers: [0, 1].map((rank) => ({ rank, localRank: rank, gpuIndices: [rank] })),
});
const desired = (generation: number, jobs: DesiredJob[]): DesiredState => ({
  hostId: 'host-a',
  generation,
  drain: false,
  stop: false,
  fence: TERMS,
  jobs,
});
const catalog = { newestComplete: () => null };
const signals = (effects: Effect[]) =>
  effects.flatMap((e) => (e.kind === 'signal' ? [`${e.signal} ${e.ref}`] : []));
const sent = (effects: Effect[]) => effects.flatMap((e) => (e.kind === 'telemetry' ? [e.message] : []));

/** A reconciler running job-1 (generation 1) on two workers since t = 0, with contact at t = 0. */
const running = () => {
  const reconciler = new Reconciler(CONFIG, catalog);
  reconciler.startContactClock(0);
  reconciler.applyDesired(desired(5, [job(1)]));
  const spawned = reconciler.reconcile(0).flatMap((e) => (e.kind === 'spawn' ? [e.ref] : []));
  for (const [rank, ref] of spawned.entries())
    reconciler.handleReport(ref, { event: 'started', step: 0, rank }, 0);
  return { reconciler, refs: spawned };
};

describe('the reconciler under a fence', () => {
  test('keeps running while contact is fresh', () => {
    const { reconciler } = running();
    reconciler.noteContact('telemetryAt', 20_000);
    reconciler.noteContact('desiredStateAt', 20_000);
    assert.deepEqual(reconciler.checkFence(44_000), []);
    assert.equal(reconciler.fenced, false);
  });

  test('out of contact past the fence: SIGUSR2, SIGKILL after the grace, stopped (fenced)', () => {
    const { reconciler, refs } = running();
    reconciler.noteContact('desiredStateAt', 20_000); // reads go on; sends have failed since t = 0
    const stop = reconciler.checkFence(24_500);
    assert.equal(reconciler.fenced, true);
    assert.deepEqual(
      signals(stop),
      refs.map((ref) => `SIGUSR2 ${ref}`),
    );
    assert.deepEqual(signals(reconciler.reconcile(27_400)), [], 'within the grace');
    assert.deepEqual(
      signals(reconciler.reconcile(27_500)),
      refs.map((ref) => `SIGKILL ${ref}`),
    );
    const exits = refs.flatMap((ref) =>
      reconciler.handleExit(ref, { code: null, signal: 'SIGKILL' }, 27_600),
    );
    const stopped = sent(exits).find((m) => m.type === 'stopped');
    assert.deepEqual(stopped && { reason: stopped.reason, timedOut: stopped.timedOut }, {
      reason: 'fenced',
      timedOut: true,
    });
  });

  test('the same generation read again does not lift the fence; a newer one does', () => {
    const { reconciler, refs } = running();
    reconciler.checkFence(25_000);
    for (const ref of refs) reconciler.handleExit(ref, { code: 75, signal: null }, 25_500);
    reconciler.noteContact('telemetryAt', 30_000);
    reconciler.noteContact('desiredStateAt', 30_000);
    reconciler.applyDesired(desired(5, [job(1)]));
    assert.deepEqual(
      reconciler.reconcile(30_000).filter((e) => e.kind === 'spawn'),
      [],
      'stays fenced',
    );
    assert.equal(reconciler.fenced, true);
    reconciler.applyDesired(desired(6, [job(2)]));
    assert.equal(reconciler.fenced, false);
    const restarted = reconciler.reconcile(31_000).filter((e) => e.kind === 'spawn');
    assert.equal(restarted.length, 2, 'the newer placement runs');
  });

  test('a restarted agent keeps counting from its predecessor’s last contact', () => {
    const { reconciler } = running();
    const restored = new Reconciler(CONFIG, catalog, reconciler.snapshot());
    restored.startContactClock(20_000); // restarted at t = 20 s: its predecessor's contact (t = 0) still counts
    assert.equal(restored.checkFence(24_500).length > 0, true);
    assert.equal(restored.fenced, true);
  });

  test('a stop already under way is cut to the grace', () => {
    const { reconciler, refs } = running();
    reconciler.noteContact('telemetryAt', 10_000);
    reconciler.noteContact('desiredStateAt', 10_000);
    reconciler.applyDesired(desired(6, [])); // unassigned: a normal stop with the 300 s checkpoint timeout
    assert.deepEqual(
      signals(reconciler.reconcile(10_000)),
      refs.map((ref) => `SIGUSR2 ${ref}`),
    );
    reconciler.checkFence(34_500);
    assert.deepEqual(
      signals(reconciler.reconcile(37_500)),
      refs.map((ref) => `SIGKILL ${ref}`),
    );
  });
});
