import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jobsByHost, oversizedJobs } from '../../../../lib/aws/round/desired-states.ts';
import { jobChangesFromActions } from '../../../../lib/aws/round/job-transitions.ts';
import { logicalSizeFor } from '../../../../lib/aws/round/logical-size.ts';
import { criusPolicy } from '../../../../lib/core/plugins/crius/policies.ts';
import { elasticFlowAllocate } from '../../../../lib/core/plugins/elasticflow/policies.ts';
import { tessera } from '../../../../lib/core/plugins/tessera/policy.ts';
import { validateDesiredState } from '../../../../lib/protocol/desired-state.ts';
import { allocation, jobItem, runningJob } from '../support/items.ts';

const clock = { now: 110 };
const machine = () => 'machine' as const;
const address = () => '10.0.0.1';
const crius = criusPolicy('crius', 'Crius with count scaling');
const elasticflow = {
  allocate: elasticFlowAllocate({ name: 'elasticflow', maxScale: 2, minMarginalGain: 0.05 }),
};
const spec4 = { ...jobItem('a').spec, gpus: 4 };

describe('logical size', () => {
  test("the policy's largest size: Crius and tessera may double a non-elastic job; elastic jobs keep maxP", () => {
    assert.equal(logicalSizeFor(spec4, tessera.allocate), 8);
    assert.equal(logicalSizeFor(spec4, crius.allocate), 8);
    assert.equal(logicalSizeFor(spec4), 4, 'a policy that never resizes: the request');
    assert.equal(
      logicalSizeFor(spec4, elasticflow.allocate),
      8,
      'ElasticFlow: powers of two up to 2 × request',
    );
    assert.equal(logicalSizeFor({ ...spec4, gpus: 3 }, elasticflow.allocate), 4);
    const elastic = { ...spec4, elastic: { maxP: 6, minGpus: 0, heterogeneous: false } };
    assert.equal(logicalSizeFor(elastic, tessera.allocate), 6);
  });

  test('recorded at the first placement, in the placement write, and never changed afterwards', () => {
    const job = jobItem('a', { spec: spec4, status: 'queued' });
    const start = jobChangesFromActions(
      new Map([['a', job]]),
      [{ kind: 'start', jobId: 'a', allocation: allocation([['h1', [0, 1, 2, 3]]]), resumeStep: 0 }],
      clock,
      () => undefined,
      machine,
      () => 8,
    )[0]!;
    assert.equal(start.changes.set?.logicalWorkers, 8);
    assert.equal(start.next.logicalWorkers, 8);
    // A later rescale under a policy (or fleet) that would now say 2 keeps the recorded 8.
    const rescale = jobChangesFromActions(
      new Map([['a', start.next]]),
      [
        {
          kind: 'rescale',
          jobId: 'a',
          from: start.next.allocation!,
          to: allocation([['h1', [0, 1]]]),
          resumeStep: 0,
        },
      ],
      clock,
      () => undefined,
      machine,
      () => 2,
    )[0]!;
    assert.equal(rescale.changes.set?.logicalWorkers, undefined, 'not written again');
    assert.equal(rescale.next.logicalWorkers, 8);
  });
});

describe('items from before L was recorded', () => {
  test('a job that already checkpointed keeps the size its checkpoints were written at', () => {
    const older = runningJob('o', allocation([['h1', [0, 1, 2, 3]]]), { spec: spec4, checkpointStep: 50 });
    const [moved] = jobChangesFromActions(
      new Map([['o', older]]),
      [
        {
          kind: 'rescale',
          jobId: 'o',
          from: older.allocation!,
          to: allocation([['h1', [0, 1]]]),
          resumeStep: 50,
        },
      ],
      clock,
      () => undefined,
      machine,
      () => 8,
    );
    assert.equal(moved?.next.logicalWorkers, 4);
    const requeued = jobItem('q', { spec: spec4, checkpointStep: 50, status: 'suspended' });
    const [started] = jobChangesFromActions(
      new Map([['q', requeued]]),
      [{ kind: 'start', jobId: 'q', allocation: allocation([['h1', [0, 1]]]), resumeStep: 50 }],
      clock,
      () => undefined,
      machine,
      () => 8,
    );
    assert.equal(started?.next.logicalWorkers, 4, 'its request, when it holds nothing');
  });
});

describe('desired state of a resized non-elastic job', () => {
  const placed = (gpus: number[]) =>
    runningJob('a', allocation([['h1', gpus]]), { spec: spec4, logicalWorkers: 8 });

  const desired = (gpus: number[]) => jobsByHost([placed(gpus)], address, 'file:///ckpt').get('h1')![0]!;

  test('maxP is always L; an even EST mapping when the worker count differs from L', () => {
    const at4 = desired([0, 1, 2, 3]);
    assert.equal(at4.maxP, 8);
    assert.equal(at4.globalBatchSize, 64, 'the spec batch: the trainer runs 64 / 8 per EST at any size');
    assert.equal(at4.worldSize, 4);
    assert.deepEqual(
      at4.workers.map((w) => w.ests),
      [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
      ],
    );
    const at2 = desired([0, 1]);
    assert.deepEqual(
      at2.workers.map((w) => w.ests),
      [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ],
    );
    const at8 = desired([0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(at8.maxP, 8);
    assert.ok(
      at8.workers.every((w) => w.ests === undefined),
      'one EST per worker: the default [rank]',
    );
    for (const job of [at4, at2, at8]) {
      const doc = { hostId: 'h1', generation: 1, jobs: [job] };
      const context = { hostId: 'h1', gpuIndices: [0, 1, 2, 3, 4, 5, 6, 7], lastAcceptedGeneration: null };
      const result = validateDesiredState(doc, context);
      assert.ok(result.ok, result.ok ? '' : result.issues.join('; '));
    }
  });

  test('more GPUs than L: L workers run, the rest stay idle, and the round is told', () => {
    const job = runningJob('b', allocation([['h1', [0, 1, 2, 3, 4, 5]]]), { spec: spec4, logicalWorkers: 4 });
    const [d] = jobsByHost([job], address, 'file:///ckpt').get('h1')!;
    assert.equal(d?.worldSize, 4);
    assert.deepEqual(
      d?.workers.map((w) => w.gpuIndices[0]),
      [0, 1, 2, 3],
    );
    assert.deepEqual(oversizedJobs([job]), [{ jobId: 'b', gpus: 6, logical: 4 }]);
    assert.deepEqual(oversizedJobs([placed([0, 1])]), []);
  });

  test('a job placed before L was recorded keeps its worker count as L', () => {
    const legacy = runningJob('c', allocation([['h1', [0, 1]]]), { spec: spec4 });
    const [d] = jobsByHost([legacy], address, 'file:///ckpt').get('h1')!;
    assert.equal(d?.maxP, 2);
    assert.ok(d?.workers.every((w) => w.ests === undefined));
  });
});
