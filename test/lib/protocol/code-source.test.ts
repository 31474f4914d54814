// The job spec's code fields (image, workdir, setup): validated by the one schema at submit, carried into the
// launch settings, counted in their size limit.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseWorkdirUri, workdirUri } from '../../../lib/protocol/code-source.ts';
import { validateDesiredState } from '../../../lib/protocol/desired-state.ts';
import { MAX_LAUNCH_BYTES, toJobLaunch, validateJobSpec } from '../../../lib/protocol/job-spec.ts';

const base = { model: 'resnet50', batchSize: 64, gpus: 1, iterations: 10, command: ['python3', 'train.py'] };
const SHA = 'ab'.repeat(32);
const URI = `s3://tessera-bucket-1/workdirs/${SHA}.tar.gz`;

const rulesFor = (doc: Record<string, unknown>, field: string): string[] => {
  const result = validateJobSpec({ ...base, ...doc });
  assert.equal(result.ok, false, `expected ${JSON.stringify(doc)} to be rejected`);
  return result.ok ? [] : result.issues.filter((i) => i.field === field).map((i) => i.rule);
};

describe('image', () => {
  test('accepts references as docker pull takes them', () => {
    for (const image of [
      'ubuntu',
      'pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime',
      'nvcr.io/nvidia/pytorch:24.05-py3',
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/train:v1',
      `localhost:5000/train@sha256:${'0'.repeat(64)}`,
      `ghcr.io/org/img:tag@sha256:${'f'.repeat(64)}`,
    ]) {
      const result = validateJobSpec({ ...base, image });
      assert.ok(result.ok, `${image}: ${result.ok ? '' : JSON.stringify(result.issues)}`);
      assert.equal(toJobLaunch(result.document).image, image);
    }
  });

  test('rejects what is not a reference, naming the field', () => {
    for (const image of ['', 'PyTorch/PyTorch', 'img:', 'a b', 'img@sha256:short', '-rf', 'x'.repeat(600)]) {
      const rules = rulesFor({ image }, 'image');
      assert.ok(rules.length > 0, image);
      assert.match(rules.join(';'), /container image reference|at most 512/);
    }
  });
});

describe('workdir', () => {
  test('accepts the uploaded archive URI and parses it', () => {
    const result = validateJobSpec({ ...base, workdir: URI });
    assert.ok(result.ok);
    assert.equal(toJobLaunch(result.document).workdir, URI);
    assert.deepEqual(parseWorkdirUri(URI), {
      bucket: 'tessera-bucket-1',
      key: `workdirs/${SHA}.tar.gz`,
      sha256: SHA,
    });
    assert.equal(workdirUri('tessera-bucket-1', SHA), URI);
  });

  test('a local path or any other object is rejected with how to get a URI', () => {
    for (const workdir of [
      './myproj',
      `s3://b/other/${SHA}.tar.gz`,
      `s3://bucket/workdirs/${SHA.slice(1)}.tar.gz`,
      `s3://Bucket/workdirs/${SHA}.tar.gz`,
    ]) {
      assert.match(rulesFor({ workdir }, 'workdir').join(), /tessera submit uploads a local directory/);
    }
    assert.equal(parseWorkdirUri('./myproj'), null);
  });
});

describe('setup', () => {
  test('a list of shell commands kept in order', () => {
    const result = validateJobSpec({ ...base, setup: ['pip install -r requirements.txt', 'make'] });
    assert.ok(result.ok);
    assert.deepEqual(toJobLaunch(result.document).setup, ['pip install -r requirements.txt', 'make']);
  });

  test('empty lists, empty commands, too many commands and non-lists are rejected', () => {
    assert.match(rulesFor({ setup: [] }, 'setup').join(), /at least one command/);
    assert.match(rulesFor({ setup: [''] }, 'setup.0').join(), /must not be empty/);
    assert.match(rulesFor({ setup: Array(33).fill('true') }, 'setup').join(), /at most 32/);
    assert.ok(rulesFor({ setup: 'make' }, 'setup').length > 0);
  });

  test('setup counts towards the launch-settings limit', () => {
    const big = Array.from({ length: 8 }, () => 'x'.repeat(2100));
    const rules = rulesFor({ setup: big }, 'command');
    assert.match(rules.join(), new RegExp(`at most ${MAX_LAUNCH_BYTES} bytes, got \\d+ \\(setup, image`));
  });
});

describe('desired state', () => {
  const desired = (code: Record<string, unknown>) => ({
    hostId: 'h',
    generation: 1,
    jobs: [
      {
        jobId: 'j',
        jobGeneration: 1,
        worldSize: 1,
        totalSteps: 10,
        checkpointUri: 'file:///tmp/c',
        resumeStep: -1,
        masterAddr: '127.0.0.1',
        masterPort: 29500,
        command: ['python3', 'train.py'],
        ...code,
        workers: [{ rank: 0, localRank: 0, gpuIndices: [0] }],
      },
    ],
  });
  const context = { hostId: 'h', gpuIndices: [0], lastAcceptedGeneration: null };

  test('carries image, workdir and setup to the agent', () => {
    const result = validateDesiredState(
      desired({ image: 'ubuntu:24.04', workdir: URI, setup: ['make'] }),
      context,
    );
    assert.ok(result.ok);
    assert.deepEqual(
      {
        image: result.state.jobs[0]!.image,
        workdir: result.state.jobs[0]!.workdir,
        setup: result.state.jobs[0]!.setup,
      },
      { image: 'ubuntu:24.04', workdir: URI, setup: ['make'] },
    );
  });

  test('the agent rejects a malformed one as a whole', () => {
    const result = validateDesiredState(desired({ workdir: '/etc' }), context);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.issues.join(), /jobs\[0\]\.workdir/);
  });
});
