import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { authorizeS3, s3Permissions } from '../../../../lib/local/endpoint/s3-authorization.ts';
import { signRequest } from '../../../../lib/local/endpoint/sigv4.ts';
import { verifySigV4 } from '../../../../lib/local/endpoint/sigv4-verify.ts';
import { LocalSts } from '../../../../lib/local/endpoint/sts.ts';

const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');
const req = (method: string, url: string, headers: Record<string, string> = {}) => ({ method, url, headers });

describe('s3Permissions', () => {
  test('object operations', () => {
    assert.deepEqual(s3Permissions(req('GET', '/b/jobs/j1/a%20b.pt')), [
      { action: 's3:GetObject', resource: 'arn:aws:s3:::b/jobs/j1/a b.pt' },
    ]);
    assert.equal(s3Permissions(req('HEAD', '/b/k'))[0]!.action, 's3:GetObject');
    assert.equal(s3Permissions(req('PUT', '/b/k?partNumber=1&uploadId=u'))[0]!.action, 's3:PutObject');
    assert.equal(s3Permissions(req('POST', '/b/k?uploads'))[0]!.action, 's3:PutObject');
    assert.equal(s3Permissions(req('DELETE', '/b/k?uploadId=u'))[0]!.action, 's3:AbortMultipartUpload');
    assert.equal(s3Permissions(req('DELETE', '/b/k'))[0]!.action, 's3:DeleteObject');
    assert.equal(s3Permissions(req('GET', '/b/k?uploadId=u'))[0]!.action, 's3:ListMultipartUploadParts');
  });

  test('a copy also needs to read its source', () => {
    assert.deepEqual(s3Permissions(req('PUT', '/b/jobs/j1/x', { 'x-amz-copy-source': '/b/jobs/j2/y' })), [
      { action: 's3:PutObject', resource: 'arn:aws:s3:::b/jobs/j1/x' },
      { action: 's3:GetObject', resource: 'arn:aws:s3:::b/jobs/j2/y' },
    ]);
  });

  test('bucket operations: listing carries its prefix; a multi-object delete needs each key', () => {
    assert.deepEqual(s3Permissions(req('GET', '/b?list-type=2&prefix=jobs%2Fj1%2F')), [
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::b', context: { 's3:prefix': 'jobs/j1/' } },
    ]);
    assert.deepEqual(s3Permissions(req('GET', '/b?list-type=2')), [
      { action: 's3:ListBucket', resource: 'arn:aws:s3:::b' },
    ]);
    assert.deepEqual(
      s3Permissions({ ...req('POST', '/b?delete'), deleteKeys: ['jobs/j1/a', 'jobs/j2/b'] }).map(
        (p) => p.resource,
      ),
      ['arn:aws:s3:::b/jobs/j1/a', 'arn:aws:s3:::b/jobs/j2/b'],
    );
    assert.equal(s3Permissions(req('GET', '/'))[0]!.action, 's3:ListAllMyBuckets');
    assert.equal(s3Permissions(req('PUT', '/b'))[0]!.action, 's3:CreateBucket');
  });
});

describe('verifySigV4 and authorizeS3', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const sts = new LocalSts('000000000000', () => now.getTime());
  const policy = JSON.stringify({
    Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::b/jobs/j1/*' }],
  });
  const body = sts.handle(
    new URLSearchParams({
      Action: 'AssumeRole',
      RoleArn: 'arn:aws:iam::1:role/r',
      RoleSessionName: 'h1',
      Policy: policy,
    }).toString(),
    'test',
  ).body;
  const key = /<AccessKeyId>([^<]+)</.exec(body)![1]!;
  const session = sts.session(key)!;
  const signed = (path: string, secret = session.secretAccessKey) => {
    const url = new URL(`http://127.0.0.1:4566${path}`);
    const headers = signRequest(
      // signRequest hashes the body; S3 clients declare that hash in x-amz-content-sha256.
      { method: 'GET', url, headers: { 'x-amz-content-sha256': EMPTY_SHA256 }, body: '' },
      {
        credentials: { accessKeyId: key, secretAccessKey: secret, sessionToken: session.sessionToken },
        region: 'us-east-1',
        service: 's3',
        now,
      },
    );
    return { method: 'GET', url: `${url.pathname}${url.search}`, headers };
  };

  test('a signature made with the session secret verifies; another does not', () => {
    assert.equal(verifySigV4(signed('/b/jobs/j1/x'), session.secretAccessKey), true);
    assert.equal(verifySigV4(signed('/b/jobs/j1/x', 'wrong'), session.secretAccessKey), false);
    const tampered = signed('/b/jobs/j1/x');
    assert.equal(verifySigV4({ ...tampered, url: '/b/jobs/j2/x' }, session.secretAccessKey), false);
  });

  test('allowed inside the session policy, denied outside; other keys are not judged', () => {
    assert.deepEqual(authorizeS3(signed('/b/jobs/j1/x'), sts), { allowed: true });
    const outside = authorizeS3(signed('/b/jobs/j2/x'), sts);
    assert.equal(outside?.allowed, false);
    assert.equal(outside && !outside.allowed && outside.code, 'AccessDenied');
    const wrongSecret = authorizeS3(signed('/b/jobs/j1/x', 'guess'), sts);
    assert.equal(wrongSecret && !wrongSecret.allowed && wrongSecret.code, 'SignatureDoesNotMatch');
    assert.equal(
      authorizeS3(req('GET', '/b/jobs/j2/x', { authorization: 'AWS4-HMAC-SHA256 Credential=test/x' }), sts),
      undefined,
    );
  });

  test('host keys under instance-role rules: the agent bundle only', () => {
    const host = (path: string) =>
      authorizeS3(req('GET', path, { authorization: 'AWS4-HMAC-SHA256 Credential=LOCALHOST6869/x' }), sts, {
        hostRoleRules: true,
      });
    assert.deepEqual(host('/b/agent/agent.mjs'), { allowed: true });
    assert.equal(host('/b/jobs/j1/x')?.allowed, false);
  });
});
