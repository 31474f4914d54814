import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  hostDataScope,
  needsVending,
  RENEW_BEFORE_SECONDS,
  scopeFingerprint,
  workdirKeysOf,
} from '../../../../lib/aws/credentials/data-scope.ts';
import type { DesiredJob } from '../../../../lib/protocol/desired-state.ts';

const job = (jobId: string, extra: Record<string, unknown> = {}): DesiredJob =>
  ({
    jobId,
    jobGeneration: 1,
    worldSize: 1,
    totalSteps: 10,
    checkpointUri: `s3://data/jobs/${jobId}/checkpoints`,
    resumeStep: -1,
    masterAddr: '10.0.0.1',
    masterPort: 29500,
    command: ['python', 'train.py'],
    workers: [{ rank: 0, localRank: 0, gpuIndices: [0] }],
    ...extra,
  }) as DesiredJob;

const sha = 'c'.repeat(64);

describe('workdirKeysOf', () => {
  test('the working-directory objects of the data bucket the job names, wherever the field is', () => {
    const j = job('job-1', { workdir: { uri: `s3://data/workdirs/${sha}.tar.gz` } });
    assert.deepEqual(workdirKeysOf(j, 'data'), [`workdirs/${sha}.tar.gz`]);
  });

  test('ignores other buckets, other prefixes and what the user writes in env or command', () => {
    const j = job('job-1', {
      workdir: `s3://other/workdirs/${sha}.tar.gz`,
      command: ['cat', `s3://data/workdirs/${sha}.tar.gz`],
      env: { STEAL: `s3://data/workdirs/${'d'.repeat(64)}.tar.gz` },
    });
    assert.deepEqual(workdirKeysOf(j, 'data'), []);
  });
});

describe('needsVending', () => {
  const scope = hostDataScope([job('job-2'), job('job-1')], 'data');
  const record = { scope: scopeFingerprint(scope), expiresAt: 10_000 };

  test('scope is per job, sorted', () => {
    assert.deepEqual(
      scope.map((s) => s.jobId),
      ['job-1', 'job-2'],
    );
  });

  test('first time, or the job set changed', () => {
    assert.equal(needsVending(undefined, scope, 0), true);
    assert.equal(needsVending(record, hostDataScope([job('job-1')], 'data'), 0), true);
  });

  test('unchanged and fresh: no; expiring within the renewal window: yes', () => {
    assert.equal(needsVending(record, scope, 10_000 - RENEW_BEFORE_SECONDS - 1), false);
    assert.equal(needsVending(record, scope, 10_000 - RENEW_BEFORE_SECONDS + 1), true);
  });

  test('a host without jobs needs none', () => {
    assert.equal(needsVending(undefined, [], 0), false);
  });
});

test('a job the host is still stopping stays in its scope with its prefix only', () => {
  assert.deepEqual(hostDataScope([job('job-y')], 'b', ['job-x', 'job-y']), [
    { jobId: 'job-x', workdirKeys: [] },
    { jobId: 'job-y', workdirKeys: [] },
  ]);
});
