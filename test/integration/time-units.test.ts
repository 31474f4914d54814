// One unit of time in every record: what the real handlers store on DynamoDB Local is epoch seconds (and seconds for
// durations), read back raw; and the upgrade rule — items a stack wrote in epoch milliseconds before are read as
// seconds, so an upgraded round neither misorders nor mis-ages them (lib/aws/items/epoch-seconds.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { changeShardOf, withChangeStamp } from '../../lib/aws/repositories/jobs-repository.ts';
import {
  QueueSnapshotRepository,
  SNAPSHOT_KEY,
} from '../../lib/aws/repositories/queue-snapshot-repository.ts';
import { segmentContent } from '../../lib/aws/round/queue-segments.ts';
import { jobIdFor, newJobItem } from '../../lib/aws/submit-job.ts';
import { JOBS_TABLE } from '../../lib/aws/tables.ts';
import { validateJobSpec } from '../../lib/protocol/job-spec.ts';
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
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;

before(async () => {
  cp = await startControlPlane();
});
after(async () => {
  await cp?.stop();
});

const nowSeconds = () => Date.now() / 1000;

/** A queued job as the code before the upgrade wrote it at `at` (epoch seconds): its API and index times in ms. */
const writeLegacyJob = async (token: string, at: number) => {
  const parsed = validateJobSpec(jobDocument({ clientToken: token, gpus: 2 }));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const item = withChangeStamp(
    newJobItem({ tenant: 'alice', document: parsed.document }, jobIdFor('alice', token), at),
    at,
  );
  const legacy = { ...item, submittedAt: at * 1000, updatedAt: at * 1000, changedAt: at * 1000 };
  await cp.clients.dynamodb.send(new PutCommand({ TableName: cp.jobs.tableName, Item: legacy }));
  return legacy;
};

const raw = async (table: string, key: Record<string, unknown>) =>
  (await cp.clients.dynamodb.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item;

/** Every number under an attribute naming an instant (…At, …Since, `at`, `heldUntil`), with its path. */
const instants = (value: unknown, path = ''): [string, number][] => {
  if (Array.isArray(value)) return value.flatMap((v, i) => instants(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    if (typeof v === 'number' && /(At|Since|^at|^heldUntil|^finishTime|^estimatedStart)$/.test(k))
      return [[here, v]];
    return instants(v, here);
  });
};

/** Asserts every instant of a raw item is epoch seconds within [from, to] (TTL `expiresAt` and leases may be later). */
const assertSeconds = (item: Record<string, unknown> | undefined, from: number, to: number, what: string) => {
  assert.ok(item, `${what} exists`);
  const found = instants(item);
  assert.ok(found.length > 0, `${what} has instants`);
  for (const [path, value] of found) {
    const later = /expiresAt$|heldUntil$|estimatedStart$/.test(path);
    assert.ok(
      value >= from - 1 && value <= (later ? to + 400 * 86_400 : to + 1),
      `${what} ${path} = ${value} s`,
    );
  }
  return found.map(([path]) => path);
};

describe('stored records are in seconds', () => {
  test('a job, its host, the round lease and state, a profile: every instant epoch seconds', async () => {
    const from = nowSeconds();
    await admitHosts(cp, 'sec-host');
    await sendTelemetry(cp, register('sec-host'));
    const submitted = await submit(cp, jobDocument({ clientToken: 'sec-a', gpus: 2 }));
    assert.equal(submitted.status, 201);
    const jobId = submitted.body.job.jobId as string;
    const atSubmit = assertSeconds(
      await raw(cp.jobs.tableName, { jobId }),
      from,
      nowSeconds(),
      'submitted job',
    );
    for (const name of ['submittedAt', 'updatedAt', 'changedAt', 'waitingSince', 'timeline[0].at'])
      assert.ok(atSubmit.includes(name), `job item has ${name}`);

    assert.equal((await invokeRound(cp)).outcome, 'completed');
    const job = await cp.jobs.get(jobId);
    assert.equal(job?.status, 'running');
    await sendTelemetry(
      cp,
      { ...heartbeat('sec-host', nowSeconds()) },
      {
        type: 'progress',
        hostId: 'sec-host',
        at: nowSeconds(),
        jobId,
        jobGeneration: job!.jobGeneration,
        step: 10,
        stepTime: 0.5,
        samplesPerSecond: 128,
        gpuUtilization: 90,
      },
    );
    const to = nowSeconds();
    const jobPaths = assertSeconds(await raw(cp.jobs.tableName, { jobId }), from, to, 'running job');
    for (const name of ['lastProgressAt', 'accountedAt', 'runningSince'])
      assert.ok(jobPaths.includes(name), `job item has ${name}`);
    const hostPaths = assertSeconds(await raw(cp.hosts.tableName, { hostId: 'sec-host' }), from, to, 'host');
    for (const name of ['stateChangedAt', 'registeredAt', 'lastHeartbeatAt'])
      assert.ok(hostPaths.includes(name), `host item has ${name}`);
    // The round released its lease (heldUntil 0); when it took it, it was held for seconds from then.
    const { heldUntil, ...lease } = (await raw(cp.state.tableName, { key: 'round-lease' })) ?? {};
    assert.equal(heldUntil, 0);
    assert.deepEqual(assertSeconds(lease, from, to, 'lease'), ['acquiredAt']);
    assert.equal(lease.expiresAt, undefined, 'the lease has no TTL attribute');
    assertSeconds(await raw(cp.state.tableName, { key: 'scheduler-state' }), from, to, 'scheduler state');
    const profiles = await cp.profiles.listAll();
    assert.ok(profiles.items.length > 0);
    for (const p of profiles.items) assert.ok(p.updatedAt >= from - 1 && p.updatedAt <= to + 1);

    // The API shows the stored seconds as the right ISO instants.
    const view = (await callApi(cp, { method: 'GET', resource: '/jobs/{id}', pathParameters: { id: jobId } }))
      .body.job;
    const submittedAt = Date.parse(view.submittedAt) / 1000;
    assert.ok(submittedAt >= from - 1 && submittedAt <= to + 1, view.submittedAt);
  });
});

describe('upgrade: items written in epoch milliseconds', () => {
  test('legacy jobs, hosts and lease are read as seconds: right order, right age, lease taken over', async () => {
    const now = nowSeconds();
    // A job an old stack wrote 10 minutes ago: submittedAt, updatedAt and changedAt in ms, as the old code wrote them.
    const legacyId = jobIdFor('alice', 'legacy-ms');
    const submittedMs = (now - 600) * 1000;
    await writeLegacyJob('legacy-ms', now - 600);
    const fresh = await submit(cp, jobDocument({ clientToken: 'after-upgrade', gpus: 64 }));
    const freshId = fresh.body.job.jobId as string;

    // Read through the schema: seconds, so the older submission sorts first.
    const read = await cp.jobs.get(legacyId);
    assert.ok(read && Math.abs(read.submittedAt - (now - 600)) < 0.01, `submittedAt ${read?.submittedAt}`);
    assert.ok(Math.abs(read.changedAt! - (now - 600)) < 0.01);
    const queued = (await cp.jobs.listByStatuses(['queued'])).items.filter((j) =>
      [legacyId, freshId].includes(j.jobId),
    );
    assert.deepEqual(
      queued.sort((a, b) => a.submittedAt - b.submittedAt).map((j) => j.jobId),
      [legacyId, freshId],
    );
    const view = (
      await callApi(cp, { method: 'GET', resource: '/jobs/{id}', pathParameters: { id: legacyId } })
    ).body.job;
    assert.equal(view.submittedAt, new Date(submittedMs).toISOString());

    // Hosts: one seen 10 s ago and one 1,000 s ago, both stamped in ms; a lease an old round holds (ms, in the future).
    const host = (hostId: string, seenSecondsAgo: number) => ({
      hostId,
      state: 'active',
      stateChangedAt: (now - 3600) * 1000,
      registeredAt: (now - 3600) * 1000,
      lastHeartbeatAt: (now - seenSecondsAgo) * 1000,
      gpuType: 'A10G',
      gpuCount: 4,
      zone: 'us-east-1a',
      desiredGeneration: 0,
    });
    await cp.clients.dynamodb.send(
      new PutCommand({ TableName: cp.hosts.tableName, Item: host('legacy-fresh', 10) }),
    );
    await cp.clients.dynamodb.send(
      new PutCommand({ TableName: cp.hosts.tableName, Item: host('legacy-silent', 1000) }),
    );
    const leaseBefore = await raw(cp.state.tableName, { key: 'round-lease' });
    await cp.clients.dynamodb.send(
      new PutCommand({
        TableName: cp.state.tableName,
        Item: {
          key: 'round-lease',
          holder: 'old-round',
          expiresAt: (now + 60) * 1000,
          acquiredAt: now * 1000,
          token: Number(leaseBefore?.token ?? 0) + 1,
        },
      }),
    );

    const report = await invokeRound(cp);
    assert.equal(report.outcome, 'completed', 'a legacy lease (no heldUntil) counts as expired');
    assert.equal((await cp.hosts.get('legacy-fresh'))?.state, 'active', 'a host seen 10 s ago is not lost');
    const silent = await cp.hosts.get('legacy-silent');
    assert.equal(silent?.state, 'lost');
    assert.match(silent?.stateReason ?? '', /no heartbeat for 10\d\d s/);
    const lease = await raw(cp.state.tableName, { key: 'round-lease' });
    assert.equal(lease?.expiresAt, undefined, 'the legacy TTL attribute is removed');
    assert.ok(
      Number(lease?.token) > Number(leaseBefore?.token ?? 0) + 1,
      'a new token: the old holder is fenced out',
    );

    // The round's writes restamp the legacy items in seconds.
    const lost = await raw(cp.hosts.tableName, { hostId: 'legacy-silent' });
    assert.ok(Number(lost?.stateChangedAt) < 1e11 && Number(lost?.stateChangedAt) >= now - 1);
  });

  test('a legacy job stays visible to the change index until its next write restamps it', async () => {
    const legacy = await writeLegacyJob('legacy-index', nowSeconds() - 60);
    const legacyId = legacy.jobId;
    const query = await cp.clients.dynamodb.send(
      new QueryCommand({
        TableName: cp.jobs.tableName,
        IndexName: JOBS_TABLE.indexes.byChange.name,
        KeyConditionExpression: '#s = :s AND #c >= :since',
        ExpressionAttributeNames: { '#s': 'changeShard', '#c': 'changedAt' },
        ExpressionAttributeValues: { ':s': changeShardOf(legacyId), ':since': nowSeconds() },
      }),
    );
    assert.ok(
      query.Items?.some((i) => i.jobId === legacyId),
      'a ms stamp sorts after every seconds stamp',
    );
    const cancelled = await callApi(cp, {
      method: 'DELETE',
      resource: '/jobs/{id}',
      pathParameters: { id: legacyId },
    });
    assert.equal(cancelled.status, 200);
    const item = await raw(cp.jobs.tableName, { jobId: legacyId });
    assert.ok(Number(item?.changedAt) < 1e11 && Number(item?.updatedAt) < 1e11, 'restamped in seconds');
    assert.ok(
      Number(item?.submittedAt) > 1e11,
      'untouched attributes keep their stored value (read as seconds)',
    );
  });

  test('a legacy queue snapshot header (watermarkMs) is not used; the next one is written in seconds', async () => {
    const snapshots = new QueueSnapshotRepository(cp.clients.dynamodb, cp.state.tableName);
    const now = nowSeconds();
    await cp.clients.dynamodb.send(
      new PutCommand({
        TableName: cp.state.tableName,
        Item: {
          key: SNAPSHOT_KEY,
          id: 'old',
          watermarkMs: now * 1000,
          fullReadAtMs: now * 1000,
          chunks: 0,
          count: 0,
          sha256: 'x',
        },
      }),
    );
    assert.ok('invalid' in (await snapshots.load()), 'the round reads the queue in full');
    const segment = snapshots.segmentWrite(1, 0, segmentContent([]));
    await cp.clients.dynamodb.send(new PutCommand(segment.item.Put as never));
    const header = snapshots.headerWrite(
      { segments: 1, watermarkMs: now * 1000, fullReadAtMs: now * 1000, persistId: 'new' },
      undefined,
    );
    await cp.clients.dynamodb.send(new UpdateCommand(header.item.Update as never));
    const stored = await raw(cp.state.tableName, { key: SNAPSHOT_KEY });
    assert.equal(stored?.watermarkMs, undefined);
    assert.ok(Math.abs(Number(stored?.watermark) - now) < 0.01, `watermark ${stored?.watermark} s`);
    const loaded = await snapshots.load();
    assert.ok('watermarkMs' in loaded && Math.abs(loaded.watermarkMs - now * 1000) < 1);
  });
});
