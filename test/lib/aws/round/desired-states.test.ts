import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkpointUriOf, desiredUpdates, jobsByHost } from '../../../../lib/aws/round/desired-states.ts';
import { validateDesiredState } from '../../../../lib/protocol/desired-state.ts';
import { fenceTermsFor } from '../../../../lib/protocol/fence.ts';
import { allocation, hostItem, jobItem, runningJob } from '../support/items.ts';

const address = (hostId: string) => `10.0.0.${hostId.slice(-1)}`;

describe('jobsByHost', () => {
  test('launch settings once per job and host; one worker per GPU, ranks across hosts in slice order', () => {
    const job = runningJob(
      'job-1',
      allocation([
        ['h1', [2, 3]],
        ['h2', [0]],
      ]),
      { jobGeneration: 4, resumeStep: 120 },
    );
    const jobs = jobsByHost([job], address, 's3://bucket/');
    assert.equal(jobs.get('h1')?.length, 1, 'one entry per job on a host');
    assert.deepEqual(
      jobs.get('h1')?.[0]?.workers.map((w) => [w.rank, w.localRank, w.gpuIndices]),
      [
        [0, 0, [2]],
        [1, 1, [3]],
      ],
    );
    assert.deepEqual(
      jobs.get('h2')?.[0]?.workers.map((w) => [w.rank, w.localRank, w.gpuIndices]),
      [[2, 0, [0]]],
    );
    const w = jobs.get('h2')![0]!;
    assert.equal(w.worldSize, 3);
    assert.equal(w.masterAddr, '10.0.0.1', 'rank 0 sits on the first slice');
    assert.equal(w.masterPort, 29500);
    assert.equal(w.jobGeneration, 4);
    assert.equal(w.resumeStep, 120);
    assert.equal(w.totalSteps, 1000);
    assert.equal(w.checkpointUri, 's3://bucket/jobs/job-1/checkpoints');
    assert.deepEqual(w.command, ['python3', 'train.py']);
  });

  test('image, working directory and setup travel once per job, and only when the job has them', () => {
    const workdir = `s3://bucket/workdirs/${'e'.repeat(64)}.tar.gz`;
    const code = { image: 'ubuntu:24.04', workdir, setup: ['make'] };
    const own = runningJob('job-own', allocation([['h1', [0, 1]]]), {
      launch: { command: ['python3', 'train.py'], ...code },
    });
    const plain = runningJob('job-plain', allocation([['h1', [2]]]));
    const onHost = jobsByHost([own, plain], address, 's3://bucket/checkpoints').get('h1')!;
    const [first, second] = onHost;
    assert.deepEqual({ image: first!.image, workdir: first!.workdir, setup: first!.setup }, code);
    assert.deepEqual([second!.image, second!.workdir, second!.setup], [undefined, undefined, undefined]);
    const check = validateDesiredState(
      { hostId: 'h1', generation: 1, jobs: onHost },
      { hostId: 'h1', gpuIndices: [0, 1, 2], lastAcceptedGeneration: null },
    );
    assert.ok(check.ok, 'the agent accepts what the round writes');
  });

  test('elastic jobs carry maxP and their ESTs per worker rank', () => {
    const job = runningJob(
      'job-e',
      {
        ...allocation([['h1', [0, 1]]]),
        ests: [
          [0, 1],
          [2, 3],
        ],
      },
      { spec: { ...jobItem('job-e').spec, elastic: { maxP: 4, minGpus: 0, heterogeneous: false } } },
    );
    const [elastic] = jobsByHost([job], address, 'file:///ckpt').get('h1')!;
    assert.equal(elastic?.maxP, 4);
    assert.deepEqual(
      elastic?.workers.map((w) => w.ests),
      [
        [0, 1],
        [2, 3],
      ],
    );
  });

  test('skips jobs that do not hold GPUs or have no rendezvous port yet', () => {
    const queued = jobItem('q');
    const portless = runningJob('p', allocation([['h1', [0]]]), { masterPort: undefined });
    assert.equal(jobsByHost([queued, portless], address, 'file:///c').size, 0);
  });

  test('the documents pass the host agent’s own validation', () => {
    const jobs = [
      runningJob('a', allocation([['h1', [0, 1]]])),
      runningJob(
        'b',
        allocation([
          ['h1', [2]],
          ['h2', [0]],
        ]),
        { masterPort: 29501, launch: { command: ['x'], env: { LR: '1' } } },
      ),
    ];
    const workers = jobsByHost(jobs, address, 'file:///ckpt');
    const hosts = [hostItem('h1'), hostItem('h2')];
    for (const update of desiredUpdates(hosts, workers)) {
      const result = validateDesiredState(update.desired, {
        hostId: update.hostId,
        gpuIndices: [0, 1, 2, 3],
        lastAcceptedGeneration: null,
      });
      assert.ok(result.ok, `host ${update.hostId}: ${result.ok ? '' : result.issues.join('; ')}`);
    }
  });
});

describe('desiredUpdates', () => {
  const job = runningJob('a', allocation([['h1', [0]]]));
  const workers = jobsByHost([job], address, 'file:///c');

  test('writes a new generation only when workers or drain change', () => {
    const [first] = desiredUpdates([hostItem('h1')], workers);
    assert.equal(first?.desired.generation, 1);
    assert.equal(first?.expectedGeneration, 0);
    const current = hostItem('h1', { desired: first!.desired, desiredGeneration: 1 });
    assert.deepEqual(desiredUpdates([current], workers), [], 'same content: no write');
    const [drained] = desiredUpdates([{ ...current, state: 'draining' }], workers);
    assert.equal(drained?.desired.drain, true);
    assert.equal(drained?.desired.generation, 2);
    const [emptied] = desiredUpdates([current], new Map());
    assert.deepEqual(emptied?.desired.jobs, []);
    assert.equal(emptied?.expectedGeneration, 1);
  });

  test('carries the fencing terms; new terms (another heartbeat timeout) are a new generation', () => {
    const terms = fenceTermsFor(300);
    const [first] = desiredUpdates([hostItem('h1')], workers, terms);
    assert.deepEqual(first?.desired.fence, { afterSeconds: 240, graceSeconds: 30 });
    const current = hostItem('h1', { desired: first!.desired, desiredGeneration: 1 });
    assert.deepEqual(desiredUpdates([current], workers, terms), [], 'same terms: no write');
    const [changed] = desiredUpdates([current], workers, fenceTermsFor(600));
    assert.deepEqual(changed?.desired.fence, { afterSeconds: 540, graceSeconds: 30 });
    assert.equal(changed?.desired.generation, 2);
  });

  test('leaves hosts without a document and without work alone, and never writes to pending or lost hosts', () => {
    assert.deepEqual(desiredUpdates([hostItem('idle')], new Map()), []);
    assert.deepEqual(
      desiredUpdates([hostItem('h1', { state: 'pending' }), hostItem('h1', { state: 'lost' })], workers),
      [],
    );
  });

  test('checkpoint URIs join the root and the job id', () => {
    assert.equal(checkpointUriOf('s3://b///', 'job-1'), 's3://b/jobs/job-1/checkpoints');
  });
});
