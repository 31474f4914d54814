// The agent ships its workers' output to S3 (s3rver, the local endpoint's S3 server) while it runs them, across an
// agent crash: the next agent re-adopts the workers and ships the rest; every line once, in order; the files of a
// forgotten job are deleted once shipped.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { S3LogSink } from '../../../agents/host/logs/s3-log-sink.ts';
import { createS3Client } from '../../../agents/host/storage/s3-client.ts';
import { createAwsClients } from '../../../lib/aws/clients.ts';
import { type LogPageLine, readLogPage } from '../../../lib/aws/logs/read-log-page.ts';
import { S3LogStore } from '../../../lib/aws/logs/s3-log-store.ts';
import { type S3Server, startS3Server } from '../../../lib/local/endpoint/s3-server.ts';
import { agentHarness, freePort, simJobs, tempDir, waitFor } from './helpers.ts';

const BUCKET = 'agent-logs';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let server: S3Server;
let url: string;

before(async () => {
  server = await startS3Server();
  server.allowAccessKey('test');
  url = `http://127.0.0.1:${server.port}`;
  process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
  await createS3Client({ endpoint: url, region: 'us-east-1' }).send(
    new CreateBucketCommand({ Bucket: BUCKET }),
  );
});
after(() => server?.stop());

const sink = () => new S3LogSink(createS3Client({ endpoint: url, region: 'us-east-1' }), BUCKET);
const store = () =>
  new S3LogStore(createAwsClients({ endpoint: url, region: 'us-east-1', credentials }).s3, BUCKET);

const allLines = async (jobId: string) => {
  const lines: LogPageLine[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await readLogPage(store(), { jobId, limit: 5000, ...(cursor ? { cursor } : {}) });
    lines.push(...page.lines);
    cursor = page.cursor;
    if (!page.more) return { lines, drained: page.drained };
  }
};

/** Polls an asynchronous probe until it returns a value. */
const until = async <T>(probe: () => Promise<T | undefined>, what: string, seconds: number): Promise<T> => {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

test('worker output reaches S3 while the job runs, across an agent crash, every line once', async () => {
  const dir = tempDir();
  const stateDir = join(dir.path, 'state');
  const limits = { flushSeconds: 0.2, maxBytes: 2048 };
  const first = agentHarness({ stateDir, logSink: sink(), logLimits: limits });
  const second = agentHarness({ stateDir, desired: first.desired, logSink: sink(), logLimits: limits });
  try {
    first.desired.set({
      hostId: 'host-a',
      generation: 1,
      jobs: simJobs({
        jobId: 'job-talk',
        jobGeneration: 1,
        worldSize: 2,
        gpus: [0, 1],
        totalSteps: 150,
        checkpointDir: join(dir.path, 'ckpt'),
        masterPort: await freePort(),
        stepMs: 20,
      }),
    });
    await first.agent.start();
    const shippedBeforeCrash = await until(
      async () => {
        const count = (await allLines('job-talk')).lines.length;
        return count >= 4 ? count : undefined;
      },
      'lines in S3 while the job runs',
      10,
    );
    await first.agent.abandon(); // the agent dies; its workers keep running and writing
    assert.ok(
      first.telemetry.ofType('finished').length === 0,
      `crashed mid-run, ${shippedBeforeCrash} lines shipped`,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await second.agent.start();
    await waitFor(() => second.telemetry.ofType('finished')[0], 'the job to finish', 20_000);
    const { lines, drained } = await until(
      async () => {
        const read = await allLines('job-talk');
        return read.drained ? read : undefined;
      },
      'both ranks’ final chunks',
      10,
    );
    assert.equal(drained, true, 'both ranks ended with a final chunk');
    const logDir = join(stateDir, 'logs');
    for (const rank of [0, 1]) {
      const file = readdirSync(logDir).find((f) => f.endsWith(`r${rank}.out`))!;
      const written = readFileSync(join(logDir, file), 'utf8').trimEnd().split('\n');
      const shipped = lines.filter((l) => l.rank === rank && l.stream === 'stdout').map((l) => l.text);
      assert.deepEqual(shipped, written, `rank ${rank}: every line its worker wrote, once, in order`);
      assert.ok(shipped.some((l) => l.includes('"event":"finished"')));
    }
    // The job is forgotten: its output files go (they are all shipped).
    second.desired.set({ hostId: 'host-a', generation: 2, jobs: [] });
    await waitFor(() => readdirSync(logDir).length === 0, 'the job’s output files to be deleted', 10_000);
    assert.equal(existsSync(join(stateDir, 'log-shipping.json')), true);
    assert.deepEqual(JSON.parse(readFileSync(join(stateDir, 'log-shipping.json'), 'utf8')).runs, []);
  } finally {
    await second.agent.drainAndStop();
    dir.cleanup();
  }
});
