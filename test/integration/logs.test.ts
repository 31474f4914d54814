// GET /jobs/{id}/logs through the real API handler: chunks shipped by the agent's log shipper into the stack's
// bucket (S3 on the local endpoint), read back by the job's tenant page by page and by rank; another tenant sees
// a 404, a forged cursor or a bad rank is a 400.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { silentLogger } from '../../agents/host/logger.ts';
import { LogShipper } from '../../agents/host/logs/log-shipper.ts';
import { S3LogSink } from '../../agents/host/logs/s3-log-sink.ts';
import { ENV } from '../../lib/aws/environment.ts';
import { tempDir } from '../agents/host/helpers.ts';
import { callApi, jobDocument, submit } from './support/fixtures.ts';
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
let jobId: string;
const dir = tempDir('tessera-it-logs-');

before(async () => {
  cp = await startControlPlane();
  jobId = (await submit(cp, jobDocument({ name: 'chatty' }))).body.job.jobId;
  const bucket = cp.runner.environment('api')[ENV.bucket];
  assert.ok(bucket, 'the stack gives the api function its logs bucket');
  const shipper = new LogShipper({
    sink: new S3LogSink(cp.clients.s3, bucket),
    hostId: 'i-0123456789abcdef0',
    statePath: join(dir.path, 'shipping.json'),
    clock: { now: () => Date.now() },
    logger: silentLogger,
  });
  for (const rank of [0, 1]) {
    const ref = `${jobId}/g1/a1/r${rank}`;
    const stdoutPath = join(dir.path, `${rank}.out`);
    const stderrPath = join(dir.path, `${rank}.err`);
    writeFileSync(stdoutPath, Array.from({ length: 30 }, (_, i) => `rank ${rank} step ${i}\n`).join(''));
    writeFileSync(stderrPath, `rank ${rank} done\n`);
    shipper.track({ ref, jobId, rank, jobGeneration: 1, stdoutPath, stderrPath });
    shipper.exited(ref);
  }
  assert.equal(await shipper.flush(10), true);
});
after(async () => {
  await cp?.stop();
  dir.cleanup();
});

const logs = (query: Record<string, string> = {}, principal = 'alice', id = jobId) =>
  callApi(cp, { method: 'GET', resource: '/jobs/{id}/logs', pathParameters: { id }, query, principal });

describe('GET /jobs/{id}/logs', () => {
  test('the tenant pages through every rank’s lines with the cursor', async () => {
    const lines: { rank: number; stream: string; text: string; at: number }[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const { status, body } = await logs({ limit: '25', ...(cursor ? { cursor } : {}) });
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.jobId, jobId);
      lines.push(...body.lines);
      pages++;
      cursor = body.nextCursor;
      if (!body.more) {
        assert.equal(body.drained, true, 'every rank ended with its final chunk');
        break;
      }
    }
    assert.equal(pages, 3);
    assert.equal(lines.length, 62);
    assert.deepEqual(
      lines.filter((l) => l.rank === 1).map((l) => `${l.stream}:${l.text}`),
      [...Array.from({ length: 30 }, (_, i) => `stdout:rank 1 step ${i}`), 'stderr:rank 1 done'],
    );
    assert.ok(
      lines.every((l) => Math.abs(l.at - Date.now() / 1000) < 120),
      'times in seconds',
    );
    const again = await logs({ cursor: cursor! });
    assert.deepEqual(again.body.lines, [], 'nothing new since the last page');
  });

  test('the rank filter', async () => {
    const { body } = await logs({ rank: '0' });
    assert.equal(body.lines.length, 31);
    assert.ok(body.lines.every((l: { rank: number }) => l.rank === 0));
    assert.deepEqual((await logs({ rank: '7' })).body.lines, []);
  });

  test('another tenant, or a job that does not exist: 404', async () => {
    assert.equal((await logs({}, 'mallory')).status, 404);
    assert.equal((await logs({}, 'alice', 'job-doesnotexist')).status, 404);
  });

  test('a forged or foreign cursor, a bad rank or limit: 400 naming the parameter', async () => {
    const forged = await logs({ cursor: 'bm90LWEtY3Vyc29y' });
    assert.equal(forged.status, 400);
    assert.deepEqual(
      forged.body.issues.map((i: { field: string }) => i.field),
      ['cursor'],
    );
    const other = (await submit(cp, jobDocument({ name: 'other' }))).body.job.jobId;
    const foreign = (await logs({ limit: '1' })).body.nextCursor;
    assert.equal((await logs({ cursor: foreign }, 'alice', other)).status, 400);
    const bad = await logs({ rank: '-1', limit: '0' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.issues.map((i: { field: string }) => i.field).sort(), ['limit', 'rank']);
  });
});
