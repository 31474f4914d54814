import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type {
  CredentialVendor,
  VendedCredentials,
} from '../../../../lib/aws/credentials/credential-vendor.ts';
import { hostDataScope, scopeFingerprint } from '../../../../lib/aws/credentials/data-scope.ts';
import {
  dataAccessSettings,
  sessionNameOf,
  vendHostCredentials,
} from '../../../../lib/aws/credentials/vend-host-credentials.ts';
import type { DesiredJob } from '../../../../lib/protocol/desired-state.ts';

const job = (jobId: string) => ({ jobId, workers: [] }) as unknown as DesiredJob;

/** Records each AssumeRole it is asked for; fails for session names listed in `failing`. */
class RecordingVendor implements CredentialVendor {
  readonly calls: { sessionName: string; policy: string }[] = [];
  constructor(private readonly failing: readonly string[] = []) {}
  async vend(sessionName: string, policy: string): Promise<VendedCredentials> {
    this.calls.push({ sessionName, policy });
    if (this.failing.includes(sessionName)) throw new Error('AccessDenied');
    const n = this.calls.length;
    return { accessKeyId: `ASIA${n}`, secretAccessKey: `s${n}`, sessionToken: `t${n}`, expiresAt: 3_600 + n };
  }
}

const settings = (vendor: CredentialVendor) => ({ vendor, bucket: 'data', bucketArn: 'arn:aws:s3:::data' });

describe('vendHostCredentials', () => {
  test('vends for hosts that need it, one session named after the host, recording scope and expiry', async () => {
    const vendor = new RecordingVendor();
    const fresh = { scope: scopeFingerprint(hostDataScope([job('job-b')], 'data')), expiresAt: 100_000 };
    const grants = await vendHostCredentials(
      [
        { hostId: 'i-a', jobs: [job('job-a')] },
        { hostId: 'i-b', dataAccess: fresh, jobs: [job('job-b')] },
        { hostId: 'i-idle', jobs: [] },
      ],
      settings(vendor),
      0,
      () => assert.fail('no error expected'),
    );
    assert.deepEqual([...grants.keys()], ['i-a']);
    assert.deepEqual(
      vendor.calls.map((c) => c.sessionName),
      ['i-a'],
    );
    assert.match(vendor.calls[0]!.policy, /arn:aws:s3:::data\/jobs\/job-a\/\*/);
    const grant = grants.get('i-a')!;
    assert.deepEqual(grant.credentials[0]!.jobIds, ['job-a']);
    assert.equal(grant.record.expiresAt, grant.credentials[0]!.expiresAt);
    assert.equal(grant.record.scope, scopeFingerprint(hostDataScope([job('job-a')], 'data')));
  });

  test('a host whose vending fails is reported and left out; the others get theirs', async () => {
    const vendor = new RecordingVendor(['i-bad']);
    const errors: string[] = [];
    const grants = await vendHostCredentials(
      [
        { hostId: 'i-bad', jobs: [job('job-1')] },
        { hostId: 'i-good', jobs: [job('job-2')] },
      ],
      settings(vendor),
      0,
      (hostId) => errors.push(hostId),
    );
    assert.deepEqual(errors, ['i-bad']);
    assert.deepEqual([...grants.keys()], ['i-good']);
  });

  test('many jobs: one session per group, the record expires with the earliest', async () => {
    const vendor = new RecordingVendor();
    const jobs = Array.from({ length: 24 }, (_, n) =>
      job(`job-${String(n).padStart(2, '0')}-${'e'.repeat(32)}`),
    );
    const grants = await vendHostCredentials([{ hostId: 'i-packed', jobs }], settings(vendor), 0, () => {});
    const grant = grants.get('i-packed')!;
    assert.ok(grant.credentials.length >= 2);
    assert.deepEqual(
      vendor.calls.map((c) => c.sessionName),
      grant.credentials.map((_, g) => (g === 0 ? 'i-packed' : `i-packed.${g}`)),
    );
    assert.equal(grant.credentials.flatMap((c) => c.jobIds).length, 24);
    assert.equal(grant.record.expiresAt, Math.min(...grant.credentials.map((c) => c.expiresAt)));
  });
});

describe('sessionNameOf / dataAccessSettings', () => {
  test('session names keep to the characters and length STS allows', () => {
    assert.equal(sessionNameOf('i-0123456789abcdef0', 0), 'i-0123456789abcdef0');
    assert.match(sessionNameOf(`host/with spaces/${'x'.repeat(80)}`, 3), /^[\w+=,.@-]{2,64}$/);
  });

  test('vending is on only with a role and an S3 data root', () => {
    const vendor = new RecordingVendor();
    assert.equal(
      dataAccessSettings(undefined, 's3://b/checkpoints', () => vendor),
      undefined,
    );
    assert.equal(
      dataAccessSettings('arn:aws:iam::1:role/r', 'file:///tmp/x', () => vendor),
      undefined,
    );
    const s = dataAccessSettings('arn:aws-cn:iam::1:role/r', 's3://b/checkpoints', () => vendor);
    assert.equal(s?.bucket, 'b');
    assert.equal(s?.bucketArn, 'arn:aws-cn:s3:::b');
  });
});
