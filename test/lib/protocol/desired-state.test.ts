import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type DesiredJob,
  type DesiredWorker,
  type ValidationContext,
  validateDesiredState,
} from '../../../lib/protocol/desired-state.ts';

const context: ValidationContext = {
  hostId: 'host-a',
  gpuIndices: [0, 1, 2, 3],
  lastAcceptedGeneration: null,
};

const worker = (overrides: Partial<DesiredWorker> = {}): DesiredWorker => ({
  rank: 0,
  localRank: 0,
  gpuIndices: [0],
  ...overrides,
});

function job(overrides: Partial<DesiredJob> = {}): DesiredJob {
  return {
    jobId: 'job-1',
    jobGeneration: 3,
    worldSize: 2,
    totalSteps: 1000,
    checkpointUri: 's3://tessera-checkpoints/job-1',
    resumeStep: -1,
    masterAddr: '10.0.0.5',
    masterPort: 29500,
    command: ['python3', '-m', 'tessera_trainer.run'],
    workers: [worker()],
    ...overrides,
  };
}

const doc = (jobs: unknown[], extra: Record<string, unknown> = {}) => ({
  hostId: 'host-a',
  generation: 7,
  jobs,
  ...extra,
});

function issuesOf(raw: unknown, ctx = context): string[] {
  const result = validateDesiredState(raw, ctx);
  assert.equal(result.ok, false, 'expected a rejection');
  return result.ok ? [] : result.issues;
}

describe('validateDesiredState', () => {
  test('keeps launch settings once per job and sorts its workers by local rank', () => {
    const result = validateDesiredState(
      doc([
        job({
          maxP: 4,
          workers: [
            worker({ rank: 1, localRank: 1, gpuIndices: [1], ests: [2, 3] }),
            worker({ rank: 0, localRank: 0, gpuIndices: [0], ests: [0, 1] }),
          ],
        }),
        job({
          jobId: 'job-2',
          jobGeneration: 1,
          worldSize: 1,
          workers: [worker({ gpuIndices: [2] })],
          env: { SEED: '7' },
        }),
      ]),
      context,
    );
    assert.ok(result.ok);
    assert.equal(result.state.generation, 7);
    assert.equal(result.state.drain, false);
    assert.equal(result.state.stop, false);
    const [first, second] = result.state.jobs;
    assert.equal(first?.maxP, 4);
    assert.deepEqual(
      first?.workers.map((w) => w.localRank),
      [0, 1],
    );
    assert.deepEqual(second?.env, { SEED: '7' });
  });

  test('drain and stop with no jobs are valid', () => {
    const drained = validateDesiredState(doc([], { drain: true }), context);
    assert.ok(drained.ok && drained.state.drain && drained.state.jobs.length === 0);
    const stopped = validateDesiredState(doc([], { stop: true }), context);
    assert.ok(stopped.ok && stopped.state.stop);
  });

  test('the flat worker list of the old format is rejected, naming the missing jobs', () => {
    assert.match(issuesOf({ hostId: 'host-a', generation: 1, workers: [] }).join('\n'), /^jobs: /m);
  });

  test('schema errors name the field path and keep the generation for the report', () => {
    const result = validateDesiredState(
      doc([job({ workers: [worker({ gpuIndices: [] })] }), { ...job(), masterPort: 70000 }]),
      context,
    );
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.generation, 7);
    const text = result.issues.join('\n');
    assert.match(text, /^jobs\[0\]\.workers\[0\]\.gpuIndices:/m);
    assert.match(text, /^jobs\[1\]\.masterPort:/m);
  });

  test('rejects non-integers, bad URIs, empty commands, jobs without workers and missing fields', () => {
    const { totalSteps: _dropped, ...withoutTotal } = job();
    const text = issuesOf(
      doc([
        job({ jobGeneration: 1.5 }),
        job({ checkpointUri: 'gs://bucket/x' }),
        job({ command: [] }),
        withoutTotal,
        job({ workers: [] }),
      ]),
    ).join('\n');
    assert.match(text, /jobs\[0\]\.jobGeneration/);
    assert.match(
      text,
      /jobs\[1\]\.checkpointUri: must be a file:\/\/\/abs\/path or s3:\/\/bucket\/prefix URI/,
    );
    assert.match(text, /jobs\[2\]\.command/);
    assert.match(text, /jobs\[3\]\.totalSteps/);
    assert.match(text, /jobs\[4\]\.workers/);
  });

  test('job env may not override what the agent manages', () => {
    const text = issuesOf(doc([job({ env: { CUDA_VISIBLE_DEVICES: '3' } })])).join('\n');
    assert.match(text, /jobs\[0\]\.env\.CUDA_VISIBLE_DEVICES: may not be set: the agent manages/);
    assert.match(
      issuesOf(doc([job({ env: { 'BAD-NAME': 'x' } })])).join('\n'),
      /jobs\[0\]\.env\.BAD-NAME: must be a valid environment variable name/,
    );
  });

  test('the document must be for this host and not older than the newest seen', () => {
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

  test('GPUs must exist; a job may not use a GPU, rank or local rank twice, nor be listed twice', () => {
    const text = issuesOf(
      doc([
        job({ workers: [worker({ gpuIndices: [9] }), worker({ rank: 0, localRank: 1, gpuIndices: [9] })] }),
        job({ jobId: 'job-2', worldSize: 1, workers: [worker({ gpuIndices: [0] })] }), // sharing GPU 0: packing
        job({ jobId: 'job-2', worldSize: 1, workers: [worker({ gpuIndices: [1] })] }),
      ]),
    ).join('\n');
    assert.match(
      text,
      /jobs\[0\]\.workers\[0\]\.gpuIndices: GPU 9 does not exist on this host \(GPUs: 0, 1, 2, 3\)/,
    );
    assert.match(text, /jobs\[0\]\.workers\[1\]: GPU 9 already used by jobs\[0\]\.workers\[0\]/);
    assert.match(text, /jobs\[0\]\.workers\[1\]: rank 0 already used by jobs\[0\]\.workers\[0\]/);
    assert.match(text, /jobs\[2\]\.jobId: job-2 already listed as jobs\[1\]/);
    assert.doesNotMatch(text, /jobs\[1\]\.workers/);
  });

  test('rank below world size and ESTs below maxP', () => {
    const text = issuesOf(doc([job({ maxP: 4, workers: [worker({ rank: 2, ests: [0, 5] })] })])).join('\n');
    assert.match(text, /jobs\[0\]\.workers\[0\]\.rank: 2 must be below worldSize 2/);
    assert.match(text, /jobs\[0\]\.workers\[0\]\.ests: EST 5 must be below maxP 4/);
  });

  test('not an object at all', () => {
    const result = validateDesiredState('hello', context);
    assert.deepEqual(result.ok ? null : [result.generation, result.issues.length > 0], [null, true]);
  });
});
