import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DesiredWorker,
  type ValidationContext,
  validateDesiredState,
} from '../../../agents/host/desired-state.ts';

const context: ValidationContext = {
  hostId: 'host-a',
  gpuIndices: [0, 1, 2, 3],
  lastAcceptedGeneration: null,
};

function worker(overrides: Partial<DesiredWorker> = {}): DesiredWorker {
  return {
    jobId: 'job-1',
    jobGeneration: 3,
    rank: 0,
    worldSize: 2,
    localRank: 0,
    gpuIndices: [0],
    totalSteps: 1000,
    checkpointUri: 's3://tessera-checkpoints/job-1',
    resumeStep: -1,
    masterAddr: '10.0.0.5',
    masterPort: 29500,
    command: ['python3', '-m', 'tessera_trainer.run'],
    ...overrides,
  };
}

const doc = (workers: unknown[], extra: Record<string, unknown> = {}) => ({
  hostId: 'host-a',
  generation: 7,
  workers,
  ...extra,
});

function issuesOf(raw: unknown, ctx = context): string[] {
  const result = validateDesiredState(raw, ctx);
  assert.equal(result.ok, false, 'expected a rejection');
  return result.ok ? [] : result.issues;
}

describe('validateDesiredState', () => {
  test('groups workers by job, sorted by local rank, with the shared settings', () => {
    const result = validateDesiredState(
      doc([
        worker({ rank: 1, localRank: 1, gpuIndices: [1], ests: [2, 3], maxP: 4 }),
        worker({ rank: 0, localRank: 0, gpuIndices: [0], ests: [0, 1], maxP: 4 }),
        worker({
          jobId: 'job-2',
          jobGeneration: 1,
          worldSize: 1,
          gpuIndices: [2],
          env: { TESSERA_SEED: '7' },
        }),
      ]),
      context,
    );
    assert.ok(result.ok);
    assert.equal(result.state.generation, 7);
    assert.equal(result.state.drain, false);
    const [first, second] = result.state.jobs;
    assert.equal(first?.jobId, 'job-1');
    assert.equal(first?.maxP, 4);
    assert.deepEqual(
      first?.workers.map((w) => w.localRank),
      [0, 1],
    );
    assert.equal(second?.jobId, 'job-2');
    assert.equal(second?.maxP, undefined);
  });

  test('an empty worker list with drain is valid', () => {
    const result = validateDesiredState(doc([], { drain: true }), context);
    assert.ok(result.ok && result.state.drain && result.state.jobs.length === 0);
  });

  test('schema errors name the field path and keep the generation for the report', () => {
    const result = validateDesiredState(
      doc([worker({ gpuIndices: [] }), { ...worker(), masterPort: 70000 }]),
      context,
    );
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.generation, 7);
    assert.ok(
      result.issues.some((issue) => issue.startsWith('workers[0].gpuIndices:')),
      result.issues.join('\n'),
    );
    assert.ok(
      result.issues.some((issue) => issue.startsWith('workers[1].masterPort:')),
      result.issues.join('\n'),
    );
  });

  test('rejects non-integers, bad URIs, empty commands and missing fields', () => {
    const { totalSteps: _dropped, ...withoutTotal } = worker();
    const issues = issuesOf(
      doc([
        worker({ jobGeneration: 1.5 }),
        worker({ checkpointUri: 'gs://bucket/x', rank: 1, localRank: 1, gpuIndices: [1] }),
        worker({ command: [], jobId: 'other', worldSize: 1 }),
        withoutTotal,
      ]),
    );
    const text = issues.join('\n');
    assert.match(text, /workers\[0\]\.jobGeneration/);
    assert.match(
      text,
      /workers\[1\]\.checkpointUri: must be a file:\/\/\/abs\/path or s3:\/\/bucket\/prefix URI/,
    );
    assert.match(text, /workers\[2\]\.command/);
    assert.match(text, /workers\[3\]\.totalSteps/);
  });

  test('job env may not override what the agent manages', () => {
    const text = issuesOf(doc([worker({ env: { CUDA_VISIBLE_DEVICES: '3' } })])).join('\n');
    assert.match(text, /workers\[0\]\.env\.CUDA_VISIBLE_DEVICES: may not be set: the agent manages/);
    assert.match(
      issuesOf(doc([worker({ env: { 'BAD-NAME': 'x' } })])).join('\n'),
      /workers\[0\]\.env\.BAD-NAME: must be a valid environment variable name/,
    );
  });

  test('the document must be for this host and not older than what was applied', () => {
    assert.match(
      issuesOf({ ...doc([]), hostId: 'host-b' }).join('\n'),
      /hostId: is "host-b" but this agent is host "host-a"/,
    );
    assert.match(
      issuesOf(doc([]), { ...context, lastAcceptedGeneration: 9 }).join('\n'),
      /generation: 7 is older than the generation already applied \(9\)/,
    );
    assert.ok(
      validateDesiredState(doc([]), { ...context, lastAcceptedGeneration: 7 }).ok,
      'same generation is fine',
    );
  });

  test('GPUs must exist; a job may not use a GPU, rank or local rank twice', () => {
    const text = issuesOf(
      doc([
        worker({ gpuIndices: [9] }),
        worker({ rank: 0, localRank: 1, gpuIndices: [9] }),
        worker({ jobId: 'job-2', worldSize: 1, gpuIndices: [0] }), // another job sharing GPU 0 is allowed (packing)
      ]),
    ).join('\n');
    assert.match(text, /workers\[0\]\.gpuIndices: GPU 9 does not exist on this host \(GPUs: 0, 1, 2, 3\)/);
    assert.match(text, /workers\[1\]: GPU 9 already used by workers\[0\] of job job-1/);
    assert.match(text, /workers\[1\]: rank 0 already used by workers\[0\] of job job-1/);
    assert.doesNotMatch(text, /workers\[2\]/);
  });

  test('rank below world size, ESTs below maxP, and job-wide fields agree', () => {
    const text = issuesOf(
      doc([
        worker({ rank: 2, ests: [0, 5], maxP: 4 }),
        worker({ rank: 1, localRank: 1, gpuIndices: [1], totalSteps: 99, maxP: 4 }),
      ]),
    ).join('\n');
    assert.match(text, /workers\[0\]\.rank: 2 must be below worldSize 2/);
    assert.match(text, /workers\[0\]\.ests: EST 5 must be below maxP 4/);
    assert.match(text, /workers\[1\]\.totalSteps: 99 differs from workers\[0\] of the same job \(1000\)/);
  });

  test('not an object at all', () => {
    const result = validateDesiredState('hello', context);
    assert.deepEqual(result.ok ? null : [result.generation, result.issues.length > 0], [null, true]);
  });
});
