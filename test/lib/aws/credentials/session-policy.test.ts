import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SESSION_POLICY_MAX_CHARS,
  SessionPolicyError,
  sessionGroups,
  sessionPolicyFor,
} from '../../../../lib/aws/credentials/session-policy.ts';
import { policyAllows } from '../../../../lib/local/endpoint/iam-policy.ts';

const BUCKET = 'arn:aws:s3:::tesserastack-storagebucket19db2ff8-1q2w3e4r5t6y';
const obj = (key: string) => `${BUCKET}/${key}`;
const jobId = (n: number) => `job-${n.toString(16).padStart(8, '0')}-4b1e-4c5d-9a7e-0123456789ab`;

describe('sessionPolicyFor', () => {
  const policy = sessionPolicyFor(BUCKET, [
    { jobId: 'job-a', workdirKeys: [`workdirs/${'a'.repeat(64)}.tar.gz`] },
    { jobId: 'job-b', workdirKeys: [] },
  ]);
  const can = (action: string, resource: string, prefix?: string) =>
    policyAllows(policy, { action, resource, ...(prefix ? { context: { 's3:prefix': prefix } } : {}) });

  test("reads, writes and deletes only under its jobs' prefixes", () => {
    assert.equal(can('s3:PutObject', obj('jobs/job-a/checkpoints/step-10/model.pt')), true);
    assert.equal(can('s3:GetObject', obj('jobs/job-b/logs/0/000001')), true);
    assert.equal(can('s3:DeleteObject', obj('jobs/job-a/checkpoints/step-10/COMPLETE')), true);
    assert.equal(can('s3:GetObject', obj('jobs/job-c/checkpoints/step-1/model.pt')), false);
    assert.equal(
      can('s3:GetObject', obj('jobs/job-ab/x')),
      false,
      'a job id that extends another is another job',
    );
    assert.equal(can('s3:GetObject', obj('agent/agent.mjs')), false);
  });

  test('lists only its prefixes', () => {
    assert.equal(can('s3:ListBucket', BUCKET, 'jobs/job-a/checkpoints/'), true);
    assert.equal(can('s3:ListBucket', BUCKET, 'jobs/'), false);
    assert.equal(can('s3:ListBucket', BUCKET, 'jobs/job-c/'), false);
  });

  test('reads exactly the working directories its jobs name, and writes none', () => {
    const mine = obj(`workdirs/${'a'.repeat(64)}.tar.gz`);
    assert.equal(can('s3:GetObject', mine), true);
    assert.equal(can('s3:PutObject', mine), false);
    assert.equal(can('s3:GetObject', obj(`workdirs/${'b'.repeat(64)}.tar.gz`)), false);
  });

  test('rejects ids and keys an IAM pattern would read as wildcards', () => {
    assert.throws(() => sessionPolicyFor(BUCKET, [{ jobId: 'job-*', workdirKeys: [] }]), SessionPolicyError);
    assert.throws(() => sessionPolicyFor(BUCKET, [{ jobId: 'a/b', workdirKeys: [] }]), SessionPolicyError);
    assert.throws(
      () => sessionPolicyFor(BUCKET, [{ jobId: 'job-a', workdirKeys: ['workdirs/*'] }]),
      SessionPolicyError,
    );
  });
});

describe('sessionGroups', () => {
  test('a few jobs share one session', () => {
    const jobs = [1, 2, 3].map((n) => ({ jobId: jobId(n), workdirKeys: [] }));
    const groups = sessionGroups(BUCKET, jobs);
    assert.equal(groups.length, 1);
    assert.deepEqual(
      groups[0]!.jobs.map((j) => j.jobId),
      jobs.map((j) => j.jobId),
    );
  });

  test('16 packed jobs with their working directories split into sessions under 2,048 characters, none widened', () => {
    const jobs = Array.from({ length: 16 }, (_, n) => ({
      jobId: jobId(n),
      workdirKeys: [`workdirs/${n.toString(16).repeat(64).slice(0, 64)}.tar.gz`],
    }));
    const all = sessionPolicyFor(BUCKET, jobs);
    assert.ok(
      all.length > SESSION_POLICY_MAX_CHARS,
      `one policy for all would take ${all.length} characters`,
    );
    const groups = sessionGroups(BUCKET, jobs);
    assert.ok(groups.length >= 2);
    for (const g of groups)
      assert.ok(g.policy.length <= SESSION_POLICY_MAX_CHARS, `${g.policy.length} chars`);
    assert.deepEqual(
      groups.flatMap((g) => g.jobs.map((j) => j.jobId)),
      jobs.map((j) => j.jobId).sort(),
      'every job in exactly one session',
    );
    // Each session reaches its own jobs and no job of another session.
    for (const g of groups) {
      const inside = new Set(g.jobs.map((j) => j.jobId));
      for (const j of jobs) {
        const allowed = policyAllows(g.policy, {
          action: 's3:GetObject',
          resource: obj(`jobs/${j.jobId}/checkpoints/step-1/model.pt`),
        });
        assert.equal(allowed, inside.has(j.jobId), j.jobId);
      }
    }
  });

  test('a job that alone does not fit is refused with the reason', () => {
    const greedy = {
      jobId: 'job-x',
      workdirKeys: Array.from({ length: 30 }, (_, n) => `workdirs/${'f'.repeat(60)}${n}.tar.gz`),
    };
    assert.throws(() => sessionGroups(BUCKET, [greedy]), /job-x: its session policy takes \d+ characters/);
  });

  test('no jobs, no sessions', () => {
    assert.deepEqual(sessionGroups(BUCKET, []), []);
  });
});
