// Per-host job-data credentials through the real round: the round function (its template environment names the
// HostDataRole) assumes the role on the local STS for each host with jobs, writes the credentials next to the
// desired state in the host's private copy (keyed by its instance ARN), renews them before they expire and removes
// them when the host has no jobs. An agent reading its copy reaches its own job's data and nothing of the other.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDesiredStateSource } from '../../agents/host/ports/dynamodb-desired-state-source.ts';
import { HostDataCredentials } from '../../agents/host/storage/data-credentials.ts';
import { S3CheckpointStore } from '../../agents/host/storage/s3-checkpoint-store.ts';
import { createS3Client } from '../../agents/host/storage/s3-client.ts';
import { ENV } from '../../lib/aws/environment.ts';
import { STATE_CHANGE } from '../../lib/aws/fleet-events/apply-fleet-event.ts';
import { localHostCredentials } from '../../lib/local/endpoint/index.ts';
import {
  admitHosts,
  callApi,
  heartbeat,
  invokeRound,
  jobDocument,
  register,
  sendTelemetry,
  submit,
} from './support/fixtures.ts';
import { ACCOUNT, type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

const BUCKET = 'tessera-data';
let cp: ControlPlane;
let copyKey: (hostId: string) => string;
const scratch = mkdtempSync(join(tmpdir(), 'tessera-hostcreds-it-'));

before(async () => {
  cp = await startControlPlane({
    context: { 'tessera:instanceFamilies': 'g5' },
    runner: { envOverrides: { round: { [ENV.checkpointRoot]: `s3://${BUCKET}` } } },
  });
  const env = cp.runner.environment('round');
  assert.match(env[ENV.hostDataRoleArn] ?? '', /^arn:aws:iam::/, 'the template names the HostDataRole');
  copyKey = (hostId) => `${env[ENV.hostArnPrefix]}${hostId}`;
  const admin = new S3Client({
    endpoint: cp.endpointUrl,
    region: REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  admin.destroy();
});
after(async () => {
  await cp?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const copyOf = async (hostId: string) =>
  (
    await cp.clients.dynamodb.send(
      new GetCommand({
        TableName: cp.hosts.tableName,
        Key: { hostId: copyKey(hostId) },
        ConsistentRead: true,
      }),
    )
  ).Item;

/** The agent of `hostId`: reads its copy with its own credential, keeps the credentials, stages through S3. */
const agentOf = async (hostId: string) => {
  const store = new HostDataCredentials();
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
  const aws = { endpoint: cp.endpointUrl, region: REGION, credentials: localHostCredentials(hostId) };
  const source = new DynamoDbDesiredStateSource(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), {
    tableName: cp.hosts.tableName,
    hostId: copyKey(hostId),
    onDataCredentials: (raw) => assert.equal(store.update(raw), true),
  });
  const desired = (await source.read()) as { jobs: { jobId: string; checkpointUri: string }[] };
  return { desired, store, s3: new S3CheckpointStore(createS3Client({ ...aws, dataCredentials: store })) };
};

const stepDir = (name: string) => {
  const dir = join(scratch, name, 'step-3');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'model.pt'), name);
  writeFileSync(join(dir, 'COMPLETE'), '');
  return dir;
};

describe('job-data credentials vended by the round', () => {
  let jobA = '';
  let jobB = '';

  test('each host’s copy carries credentials for exactly its jobs; the host item records scope and expiry', async () => {
    await admitHosts(cp, 'host-a', 'host-b');
    await sendTelemetry(cp, register('host-a'), register('host-b'));
    jobA = (await submit(cp, jobDocument({ clientToken: 'creds-a', gpus: 4 }))).body.job.jobId;
    jobB = (await submit(cp, jobDocument({ clientToken: 'creds-b', gpus: 4 }))).body.job.jobId;
    const report = await invokeRound(cp);
    assert.equal(report.actions.start, 2);
    for (const hostId of ['host-a', 'host-b']) {
      const host = await cp.hosts.get(hostId);
      const jobs = host!.desired!.jobs.map((j) => j.jobId);
      assert.equal(jobs.length, 1);
      const copy = await copyOf(hostId);
      assert.deepEqual(
        copy?.dataCredentials.map((c: { jobIds: string[] }) => c.jobIds),
        [jobs],
      );
      assert.match(copy?.dataCredentials[0].accessKeyId, /^ASIA/);
      const left = (host?.dataAccess?.expiresAt ?? 0) - Date.now() / 1000;
      assert.ok(left > 800 && left <= 905, `15 minutes, STS's minimum (${left.toFixed(0)} s left)`);
      assert.equal(
        JSON.stringify(host).includes(copy?.dataCredentials[0].secretAccessKey),
        false,
        'no secret on the host item',
      );
    }
    assert.equal(
      (await invokeRound(cp)).hostWrites,
      0,
      'unchanged jobs, fresh credentials: nothing to write',
    );
  });

  test('an agent stages its own job’s checkpoints and cannot reach the other job', async () => {
    const hostOfA = (await cp.jobs.get(jobA))!.allocation!.slices[0]!.hostId;
    const hostOfB = (await cp.jobs.get(jobB))!.allocation!.slices[0]!.hostId;
    const a = await agentOf(hostOfA);
    const uriA = a.desired.jobs[0]!.checkpointUri;
    assert.equal(uriA, `s3://${BUCKET}/jobs/${jobA}/checkpoints`);
    await a.s3.upload(uriA, 3, stepDir('a'));
    assert.equal(await a.s3.newestComplete(uriA), 3);
    const b = await agentOf(hostOfB);
    await b.s3.upload(b.desired.jobs[0]!.checkpointUri, 3, stepDir('b'));
    // Host A's vended credentials used on job B's prefix: the endpoint refuses them.
    const forged = new S3CheckpointStore(
      new S3Client({
        endpoint: cp.endpointUrl,
        region: REGION,
        forcePathStyle: true,
        credentials: a.store.forJob(jobA)!,
      }),
    );
    await assert.rejects(forged.newestComplete(`s3://${BUCKET}/jobs/${jobB}/checkpoints`), {
      name: 'AccessDenied',
    });
    await assert.rejects(a.s3.newestComplete(`s3://${BUCKET}/jobs/${jobB}/checkpoints`), {
      name: 'NoDataCredentialsError',
    });
  });

  test('credentials about to expire are renewed; the desired state stays as it was', async (t) => {
    const hostId = (await cp.jobs.get(jobA))!.allocation!.slices[0]!.hostId;
    const before = await cp.hosts.get(hostId);
    const oldKey = (await copyOf(hostId))?.dataCredentials[0].accessKeyId;
    // As if 11 minutes had passed: the recorded expiry is within the 5-minute renewal window.
    await cp.hosts.update(hostId, {
      set: { dataAccess: { ...before!.dataAccess!, expiresAt: Date.now() / 1000 + 250 } },
    });
    const report = await invokeRound(cp);
    assert.equal(report.hostWrites, 1);
    // What a renewal writes: the host item and its copy in one transaction (2 WRU per started KB of each item).
    const kb = (item: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024);
    const hostKb = kb(await cp.hosts.get(hostId));
    const copyKb = kb(await copyOf(hostId));
    t.diagnostic(`one renewal: host item ${hostKb} KB + copy ${copyKb} KB → ${2 * (hostKb + copyKb)} WRU`);
    const after = await cp.hosts.get(hostId);
    const copy = await copyOf(hostId);
    assert.notEqual(copy?.dataCredentials[0].accessKeyId, oldKey);
    assert.ok(after!.dataAccess!.expiresAt > Date.now() / 1000 + 800);
    assert.equal(
      after?.desiredGeneration,
      before?.desiredGeneration,
      'no new generation for new credentials',
    );
    assert.equal(copy?.desired.generation, before?.desired?.generation);
    const agent = await agentOf(hostId);
    assert.equal(await agent.s3.newestComplete(agent.desired.jobs[0]!.checkpointUri), 3);
  });

  const cancel = async (jobId: string) => {
    const response = await callApi(cp, {
      method: 'DELETE',
      resource: '/jobs/{id}',
      pathParameters: { id: jobId },
    });
    assert.equal(response.status, 202);
    await invokeRound(cp);
    assert.equal((await cp.jobs.get(jobId))?.status, 'cancelled');
  };

  test('when a host’s jobs change its credentials follow; a host left without jobs loses them', async () => {
    const hostOfB = (await cp.jobs.get(jobB))!.allocation!.slices[0]!.hostId;
    await cancel(jobB);
    // The host keeps job B's credentials while it may still be stopping it (no heartbeat says otherwise here):
    // the round after the one that took the job away removes them.
    await invokeRound(cp);
    // The freed GPUs may go to job A (it grows): whatever the host now runs, its credentials list exactly that.
    const copy = await copyOf(hostOfB);
    const running = copy?.desired.jobs.map((j: { jobId: string }) => j.jobId) ?? [];
    assert.ok(!running.includes(jobB));
    assert.deepEqual(copy?.dataCredentials?.flatMap((c: { jobIds: string[] }) => c.jobIds) ?? [], running);
    await cancel(jobA);
    await invokeRound(cp);
    for (const hostId of ['host-a', 'host-b']) {
      const emptied = await copyOf(hostId);
      assert.deepEqual(emptied?.desired.jobs, []);
      assert.equal(emptied?.dataCredentials, undefined);
      assert.equal((await cp.hosts.get(hostId))?.dataAccess, undefined);
    }
  });

  test('a host EC2 reports terminated loses its credentials at once; the round vends none for it', async () => {
    const jobId = (await submit(cp, jobDocument({ clientToken: 'creds-c', gpus: 4 }))).body.job.jobId;
    await invokeRound(cp);
    const hostId = (await cp.jobs.get(jobId))!.allocation!.slices[0]!.hostId;
    assert.equal((await copyOf(hostId))?.dataCredentials?.length, 1);
    await cp.runner.invoke('fleet-events', {
      version: '0',
      id: 'e',
      'detail-type': STATE_CHANGE,
      source: 'aws.ec2',
      account: ACCOUNT,
      time: new Date().toISOString(),
      region: REGION,
      resources: [],
      detail: { 'instance-id': hostId, state: 'terminated' },
    });
    assert.equal((await cp.hosts.get(hostId))?.state, 'lost');
    assert.equal((await copyOf(hostId))?.dataCredentials, undefined, 'removed from its copy');
    await invokeRound(cp);
    assert.equal((await copyOf(hostId))?.dataCredentials, undefined, 'never vended again');
    await cancel(jobId); // requeued onto another host: the next test starts from hosts without jobs
  });

  test('a host still stopping a job that left it keeps that job’s credentials until it reports the job gone', async () => {
    const jobC = (await submit(cp, jobDocument({ clientToken: 'creds-d', gpus: 4 }))).body.job.jobId;
    await invokeRound(cp);
    const placed = (await cp.jobs.get(jobC))!;
    const hostId = placed.allocation!.slices[0]!.hostId;
    const stopping = {
      jobId: jobC,
      jobGeneration: placed.jobGeneration,
      phase: 'stopping',
      step: 7,
      checkpointStep: null,
      crashes: 0,
      workers: [],
    };
    await sendTelemetry(cp, heartbeat(hostId, Date.now() / 1000, [stopping]));
    await cancel(jobC); // the job leaves the host's desired state while the agent still checkpoints it
    const agent = await agentOf(hostId);
    assert.deepEqual(agent.desired.jobs, []);
    // Its final checkpoint still reaches the job's prefix.
    const uri = `s3://${BUCKET}/jobs/${jobC}/checkpoints`;
    await agent.s3.upload(uri, 3, stepDir('c'));
    assert.equal(await agent.s3.newestComplete(uri), 3);
    // The agent reports the job gone: the next round takes the credentials away.
    await sendTelemetry(cp, heartbeat(hostId, Date.now() / 1000 + 1, []));
    await invokeRound(cp);
    assert.equal((await copyOf(hostId))?.dataCredentials, undefined);
    assert.equal((await cp.hosts.get(hostId))?.dataAccess, undefined);
  });
});
