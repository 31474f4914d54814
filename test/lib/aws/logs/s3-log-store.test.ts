// Logs through real parts: the agent's shipper uploads chunks with its S3 client to a real S3-compatible server
// (s3rver, as the local endpoint runs it), and the API's S3 log store pages them back: every line once, in order,
// by rank, and what a worker shipped before its agent died stays readable.
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { silentLogger } from '../../../../agents/host/logger.ts';
import { LogShipper } from '../../../../agents/host/logs/log-shipper.ts';
import { S3LogSink } from '../../../../agents/host/logs/s3-log-sink.ts';
import { createS3Client } from '../../../../agents/host/storage/s3-client.ts';
import { createAwsClients } from '../../../../lib/aws/clients.ts';
import { type LogPage, readLogPage } from '../../../../lib/aws/logs/read-log-page.ts';
import { S3LogStore } from '../../../../lib/aws/logs/s3-log-store.ts';
import { type S3Server, startS3Server } from '../../../../lib/local/endpoint/s3-server.ts';
import { tempDir } from '../../../agents/host/helpers.ts';

const BUCKET = 'tessera-logs-test';
let server: S3Server;
let url: string;
const dir = tempDir('tessera-logs-');

before(async () => {
  server = await startS3Server();
  server.allowAccessKey('test');
  url = `http://127.0.0.1:${server.port}`;
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  await createS3Client({ endpoint: url, region: 'us-east-1' }).send(
    new CreateBucketCommand({ Bucket: BUCKET }),
  );
});
after(async () => {
  await server?.stop();
  dir.cleanup();
});

const store = () =>
  new S3LogStore(
    createAwsClients({
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    }).s3,
    BUCKET,
  );

/** The x-amz-tagging header of every PutObject the agent's client sends. */
const taggings: string[] = [];
const recordingClient = () => {
  const client = createS3Client({ endpoint: url, region: 'us-east-1' });
  client.middlewareStack.add(
    (next) => async (args) => {
      const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
      if (headers['x-amz-tagging'] !== undefined) taggings.push(headers['x-amz-tagging']);
      return next(args);
    },
    { step: 'finalizeRequest' },
  );
  return client;
};

const shipper = (clock: { t: number }, name: string) =>
  new LogShipper({
    sink: new S3LogSink(recordingClient(), BUCKET),
    hostId: `host-${name}`,
    statePath: join(dir.path, `${name}-shipping.json`),
    clock: { now: () => clock.t * 1000 },
    logger: silentLogger,
    limits: { flushSeconds: 5, maxBytes: 2048 }, // about 60 chunks per rank: more than a page reads
  });

const worker = (jobId: string, rank: number) => ({
  ref: `${jobId}/g1/a1/r${rank}`,
  jobId,
  rank,
  jobGeneration: 1,
  stdoutPath: join(dir.path, `${jobId}-${rank}.out`),
  stderrPath: join(dir.path, `${jobId}-${rank}.err`),
});

const readAll = async (jobId: string, options: { rank?: number; limit: number }) => {
  const pages: LogPage[] = [];
  let cursor: string | undefined;
  do {
    pages.push(await readLogPage(store(), { jobId, ...options, ...(cursor ? { cursor } : {}) }));
    cursor = pages.at(-1)!.cursor;
  } while (pages.at(-1)!.more);
  return pages;
};

describe('logs through S3', () => {
  test('two ranks, 1000 lines each: paged back in order, every line once; the rank filter; drained at the end', async () => {
    const clock = { t: 1_700_000_000 };
    const ship = shipper(clock, 'a');
    const ranks = [0, 1].map((rank) => worker('job-paged', rank));
    for (const w of ranks) ship.track(w);
    for (let batch = 0; batch < 10; batch++) {
      for (const w of ranks) {
        const lines = Array.from({ length: 100 }, (_, i) => `rank ${w.rank} line ${batch * 100 + i}`);
        appendFileSync(w.stdoutPath, `${lines.join('\n')}\n`);
        appendFileSync(w.stderrPath, `rank ${w.rank} warning ${batch}\n`);
      }
      ship.tick();
      await ship.idle();
      clock.t += 1;
    }
    for (const w of ranks) ship.exited(w.ref);
    assert.equal(await ship.flush(10), true);

    const pages = await readAll('job-paged', { limit: 300 });
    const lines = pages.flatMap((p) => p.lines);
    assert.equal(lines.length, 2 * 1010);
    assert.ok(pages.length >= 7, `${pages.length} pages of at most 300 lines`);
    for (const rank of [0, 1]) {
      const out = lines.filter((l) => l.rank === rank && l.stream === 'stdout').map((l) => l.text);
      assert.deepEqual(
        out,
        Array.from({ length: 1000 }, (_, i) => `rank ${rank} line ${i}`),
      );
      const err = lines.filter((l) => l.rank === rank && l.stream === 'stderr').map((l) => l.text);
      assert.deepEqual(
        err,
        Array.from({ length: 10 }, (_, i) => `rank ${rank} warning ${i}`),
      );
    }
    assert.equal(pages.at(-1)!.drained, true);
    const onlyOne = (await readAll('job-paged', { rank: 1, limit: 5000 })).flatMap((p) => p.lines);
    assert.equal(onlyOne.length, 1010);
    assert.ok(onlyOne.every((l) => l.rank === 1));

    // Every chunk upload carries the tag the bucket's lifecycle rule expires logs by (s3rver ignores the header,
    // so it is checked on the wire).
    assert.ok(taggings.length >= 20);
    assert.ok(taggings.every((t) => t === 'tessera-data=logs'));
  });

  test('an agent that died: the lines it shipped stay readable; the rank is not drained', async () => {
    const clock = { t: 1_700_001_000 };
    const ship = shipper(clock, 'b');
    const w = worker('job-dead', 0);
    ship.track(w);
    writeFileSync(w.stdoutPath, 'epoch 1\nepoch 2\n');
    ship.tick();
    await ship.idle();
    clock.t += 5;
    ship.tick();
    await ship.idle();
    appendFileSync(w.stdoutPath, 'epoch 3 (never shipped: the host died)\n');
    ship.tick();
    await ship.idle();
    await ship.stop(); // the host is gone with everything on it

    const [page] = await readAll('job-dead', { limit: 100 });
    assert.deepEqual(
      page!.lines.map((l) => l.text),
      ['epoch 1', 'epoch 2'],
    );
    assert.equal(page!.drained, false);
  });
});
