// Per-host job-data credentials through real calls: the round's vendor assumes the HostDataRole on the local
// endpoint's STS with each host's session policy, the agent's S3 factory signs with what it got, and the endpoint
// holds every request to its session policy: host A reaches job A's checkpoints and the working directory job A
// names, and nothing of job B.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { HostDataCredentials } from '../../../../agents/host/storage/data-credentials.ts';
import { S3CheckpointStore } from '../../../../agents/host/storage/s3-checkpoint-store.ts';
import { createS3Client } from '../../../../agents/host/storage/s3-client.ts';
import { StsCredentialVendor } from '../../../../lib/aws/credentials/credential-vendor.ts';
import {
  type HostDataGrant,
  vendHostCredentials,
} from '../../../../lib/aws/credentials/vend-host-credentials.ts';
import {
  type LocalEndpoint,
  localHostCredentials,
  startLocalEndpoint,
} from '../../../../lib/local/endpoint/index.ts';
import type { DesiredJob } from '../../../../lib/protocol/desired-state.ts';
import { sharedDynamoDbLocal } from '../../../support/shared-dynamodb-local.ts';
import { clientConfig } from './helpers.ts';

const BUCKET = 'tessera-data';
const ROLE = 'arn:aws:iam::000000000000:role/tessera-HostDataRole';
const WORKDIR_A = `workdirs/${'a'.repeat(64)}.tar.gz`;
const WORKDIR_B = `workdirs/${'b'.repeat(64)}.tar.gz`;
const checkpoints = (jobId: string) => `s3://${BUCKET}/jobs/${jobId}/checkpoints`;

const desiredJob = (jobId: string, workdir?: string) =>
  ({
    jobId,
    checkpointUri: checkpoints(jobId),
    ...(workdir ? { workdir: `s3://${BUCKET}/${workdir}` } : {}),
    command: ['python', 'train.py'],
    workers: [{ rank: 0, localRank: 0, gpuIndices: [0] }],
  }) as unknown as DesiredJob;

let now = Date.now();
let endpoint: LocalEndpoint;
let grants: Map<string, HostDataGrant>;
const scratch = mkdtempSync(join(tmpdir(), 'tessera-hostdata-'));

/** What the agent of `hostId` does: its own host credential, and the vended sets as read from its desired copy. */
const agentS3 = (hostId: string, grant = grants.get(hostId)!) => {
  const store = new HostDataCredentials();
  assert.equal(store.update(JSON.parse(JSON.stringify(grant.credentials))), true);
  return createS3Client({
    endpoint: endpoint.url,
    region: 'us-east-1',
    credentials: localHostCredentials(hostId),
    dataCredentials: store,
  });
};

const stepDir = (name: string, step: number) => {
  const dir = join(scratch, name, `step-${step}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.pt'), `weights of ${name} at ${step}`);
  writeFileSync(join(dir, 'COMPLETE'), '');
  return dir;
};

const rejects = async (work: Promise<unknown>, code: string) => {
  await assert.rejects(work, (error: Error) => {
    assert.equal(error.name, code, error.message);
    return true;
  });
};

before(async () => {
  endpoint = await startLocalEndpoint({
    port: 0,
    sts: { clock: () => now },
    s3: { hostRoleRules: true },
    ...sharedDynamoDbLocal(),
  });
  const admin = new S3Client({ ...clientConfig(endpoint.url), forcePathStyle: true });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  for (const key of [WORKDIR_A, WORKDIR_B])
    await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: `tarball ${key}` }));
  admin.destroy();
  const vendor = new StsCredentialVendor(new STSClient(clientConfig(endpoint.url)), ROLE);
  grants = await vendHostCredentials(
    [
      { hostId: 'i-host-a', jobs: [desiredJob('job-a', WORKDIR_A)] },
      { hostId: 'i-host-b', jobs: [desiredJob('job-b', WORKDIR_B)] },
    ],
    { vendor, bucket: BUCKET, bucketArn: `arn:aws:s3:::${BUCKET}` },
    now / 1000,
    (hostId, error) => assert.fail(`${hostId}: ${String(error)}`),
  );
});

after(async () => {
  await endpoint?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('per-host job-data credentials on the local endpoint', () => {
  test('each host stages its own job’s checkpoints through S3', async () => {
    assert.deepEqual([...grants.keys()].sort(), ['i-host-a', 'i-host-b']);
    const a = new S3CheckpointStore(agentS3('i-host-a'));
    const b = new S3CheckpointStore(agentS3('i-host-b'));
    await a.upload(checkpoints('job-a'), 5, stepDir('a', 5));
    await b.upload(checkpoints('job-b'), 7, stepDir('b', 7));
    assert.equal(await a.newestComplete(checkpoints('job-a')), 5);
    assert.equal(await b.newestComplete(checkpoints('job-b')), 7);
    const restored = join(scratch, 'restored-a');
    await a.download(checkpoints('job-a'), 5, restored);
  });

  test('host A cannot list, read, overwrite or delete job B’s checkpoint', async () => {
    const s3 = agentS3('i-host-a');
    const key = 'jobs/job-b/checkpoints/step-7/model.pt';
    // The agent's client has no credentials for job B: it does not even send.
    await rejects(new S3CheckpointStore(s3).newestComplete(checkpoints('job-b')), 'NoDataCredentialsError');
    await rejects(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })), 'NoDataCredentialsError');
    // The host's own credential (its instance role) has no rights on job data at all.
    const own = new S3Client({
      endpoint: endpoint.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: localHostCredentials('i-host-a'),
    });
    await rejects(own.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })), 'AccessDenied');
    await rejects(new S3CheckpointStore(own).newestComplete(checkpoints('job-b')), 'AccessDenied');
    await rejects(own.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'x' })), 'AccessDenied');
    // Signing job B's request with job A's credentials (the factory would not) is refused just the same.
    const forged = new S3Client({
      endpoint: endpoint.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: grants.get('i-host-a')!.credentials[0]!,
    });
    await rejects(forged.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })), 'AccessDenied');
    await rejects(new S3CheckpointStore(forged).newestComplete(checkpoints('job-b')), 'AccessDenied');
    await rejects(forged.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'x' })), 'AccessDenied');
    await rejects(forged.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key })), 'AccessDenied');
    const mine = await forged.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: 'jobs/job-a/checkpoints/step-5/model.pt' }),
    );
    assert.equal(await mine.Body?.transformToString(), 'weights of a at 5');
  });

  test('a host reads the working directory its job names, and no other; it writes none', async () => {
    const s3 = agentS3('i-host-a');
    const mine = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: WORKDIR_A }));
    assert.equal(await mine.Body?.transformToString(), `tarball ${WORKDIR_A}`);
    await rejects(
      s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: WORKDIR_B })),
      'NoDataCredentialsError',
    );
    const forged = new S3Client({
      endpoint: endpoint.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: grants.get('i-host-a')!.credentials[0]!,
    });
    await rejects(forged.send(new GetObjectCommand({ Bucket: BUCKET, Key: WORKDIR_B })), 'AccessDenied');
    await rejects(
      forged.send(new PutObjectCommand({ Bucket: BUCKET, Key: WORKDIR_A, Body: 'x' })),
      'AccessDenied',
    );
  });

  test('hosts cannot assume the data role, with their own credential or with vended ones', async () => {
    for (const credentials of [localHostCredentials('i-host-a'), grants.get('i-host-a')!.credentials[0]!]) {
      const sts = new STSClient({ endpoint: endpoint.url, region: 'us-east-1', credentials });
      await rejects(
        sts.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'i-host-a' })),
        'AccessDenied',
      );
    }
  });

  test('a wrong secret or token is refused; credentials stop working when they expire', async () => {
    const set = grants.get('i-host-a')!.credentials[0]!;
    const key = 'jobs/job-a/checkpoints/step-5/model.pt';
    const client = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string }) =>
      new S3Client({ endpoint: endpoint.url, region: 'us-east-1', forcePathStyle: true, credentials });
    await rejects(
      client({ ...set, secretAccessKey: 'guessed' }).send(new GetObjectCommand({ Bucket: BUCKET, Key: key })),
      'SignatureDoesNotMatch',
    );
    await rejects(
      client({ ...set, sessionToken: 'other' }).send(new GetObjectCommand({ Bucket: BUCKET, Key: key })),
      'InvalidToken',
    );
    now = set.expiresAt * 1000 + 1000;
    try {
      await rejects(client(set).send(new GetObjectCommand({ Bucket: BUCKET, Key: key })), 'ExpiredToken');
    } finally {
      now = Date.now();
    }
  });

  test('a host with 16 jobs gets several sessions; each job’s data is reached with its own', async () => {
    const vendor = new StsCredentialVendor(new STSClient(clientConfig(endpoint.url)), ROLE);
    const jobs = Array.from({ length: 16 }, (_, n) =>
      desiredJob(`job-${n.toString(16).padStart(2, '0')}-6c1f2a9e-4b1e-4c5d-9a7e-0123456789ab`),
    );
    const packed = await vendHostCredentials(
      [{ hostId: 'i-host-packed', jobs }],
      { vendor, bucket: BUCKET, bucketArn: `arn:aws:s3:::${BUCKET}` },
      now / 1000,
      (hostId, error) => assert.fail(`${hostId}: ${String(error)}`),
    );
    const grant = packed.get('i-host-packed')!;
    assert.ok(grant.credentials.length >= 2, `${grant.credentials.length} session(s)`);
    const store = new S3CheckpointStore(agentS3('i-host-packed', grant));
    for (const job of [jobs[0]!, jobs[15]!]) {
      await store.upload(checkpoints(job.jobId), 1, stepDir(job.jobId, 1));
      assert.equal(await store.newestComplete(checkpoints(job.jobId)), 1);
    }
    await rejects(store.newestComplete(checkpoints('job-a')), 'NoDataCredentialsError');
    // Each session reaches only its own group: the first set cannot reach the last group's job.
    const first = new S3Client({
      endpoint: endpoint.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: grant.credentials[0]!,
    });
    const last = grant.credentials.at(-1)!.jobIds.at(-1)!;
    await rejects(new S3CheckpointStore(first).newestComplete(checkpoints(last)), 'AccessDenied');
  });
});
