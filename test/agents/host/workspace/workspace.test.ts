// Code on the host through the real parts: a working directory packed and uploaded as `tessera submit` does, to the
// local endpoint's S3 (the real s3rver behind its one port); the agent downloads it through its S3 client, runs
// setup once, then each worker's command in it — directly, or through a stand-in container runtime that checks
// the docker arguments and runs the command as a container would see it (with S3 checkpoint staging, whose local
// directory the container mounts).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { workspaceLauncher } from '../../../../agents/host/workspace/workspace-setup.ts';
import { bringWorkdirs } from '../../../../lib/cli/workdir/bring-workdirs.ts';
import type { DesiredJob } from '../../../../lib/protocol/desired-state.ts';
import { agentHarness, assertNoOrphans, fileUri, freePort, tempDir, waitFor } from '../helpers.ts';
import { BUCKET, type LocalS3, startLocalS3 } from '../s3-staging.ts';

const MYPROJ = resolve(import.meta.dirname, '../../../fixtures/myproj');
const RUNTIME = resolve(import.meta.dirname, '../../../fixtures/container/stand-in-runtime.mjs');
let local: LocalS3;
let s3: S3Client;
let endpoint: string;
const dir = tempDir('tessera-workspace-');

before(async () => {
  local = await startLocalS3(); // creates the bucket
  endpoint = local.endpoint.url;
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  // The user's side, made as the CLI makes it (bring-workdirs.ts).
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'user', secretAccessKey: 'user' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});

after(async () => {
  s3?.destroy();
  await local?.stop();
  dir.cleanup();
});

const noApi = {
  config: () => Promise.reject(new Error('the tests give the bucket directly')),
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  region: 'us-east-1',
};

/** What `tessera submit` does with `workdir: ./myproj`: pack, upload (once for the sweep), rewrite. */
const uploadMyproj = async (jobs = 1): Promise<{ uri: string; lines: string[] }> => {
  const lines: string[] = [];
  const documents = Array.from({ length: jobs }, (_, i) => ({ document: { workdir: './myproj', n: i } }));
  const rewritten = await bringWorkdirs(documents, noApi, {
    baseDir: resolve(MYPROJ, '..'),
    report: (line) => lines.push(line),
    s3: { client: s3, bucket: BUCKET },
  });
  const uris = new Set(rewritten.map((j) => j.document.workdir as string));
  assert.equal(uris.size, 1, 'every job of the sweep names the same archive');
  return { uri: [...uris][0]!, lines };
};

const jobWith = (
  code: Pick<DesiredJob, 'workdir' | 'image' | 'setup'>,
  out: string,
  port: number,
  gpus: number[],
): DesiredJob => ({
  jobId: `job-${Math.random().toString(16).slice(2, 8)}`,
  jobGeneration: 1,
  worldSize: gpus.length,
  totalSteps: 5,
  checkpointUri: fileUri(join(out, 'ckpt')),
  resumeStep: -1,
  masterAddr: '127.0.0.1',
  masterPort: port,
  command: [process.execPath, 'train.mjs'],
  env: { OUT_DIR: out },
  ...code,
  workers: gpus.map((gpu, rank) => ({ rank, localRank: rank, gpuIndices: [gpu] })),
});

const runToEnd = async (job: DesiredJob, stateDir: string, containerRuntime = 'docker') => {
  const harness = agentHarness({
    stateDir,
    checkpointStaging: local.staging(stateDir),
    workspaces: workspaceLauncher({ stateDir, aws: { region: 'us-east-1', endpoint }, containerRuntime }),
  });
  await harness.agent.start();
  try {
    harness.desired.set({ hostId: 'host-a', generation: 1, jobs: [job] });
    const end = await waitFor(
      () =>
        harness.telemetry.messages.find(
          (m) => (m.type === 'finished' || m.type === 'failed') && m.jobId === job.jobId,
        ),
      `job ${job.jobId} to end`,
      30_000,
    );
    return { end, harness };
  } finally {
    await harness.agent.drainAndStop();
    await assertNoOrphans(harness.pids);
  }
};

const seen = (out: string, rank: number) =>
  JSON.parse(readFileSync(join(out, `rank-${rank}.json`), 'utf8')) as {
    cwd: string;
    built: string | null;
    env: Record<string, string>;
  };

describe('a job with a working directory', () => {
  test('uploaded once for a sweep, downloaded by the agent, setup once, every worker runs in it', async () => {
    const { uri, lines } = await uploadMyproj(3);
    assert.match(uri, /^s3:\/\/tessera-checkpoints\/workdirs\/[0-9a-f]{64}\.tar\.gz$/);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /workdir \.\/myproj: 2 files, .* uploaded to s3:\/\//);
    const again = await uploadMyproj(1);
    assert.equal(again.uri, uri, 'the same tree packs to the same archive');
    assert.match(again.lines[0]!, /already at/, 'an object already there is not uploaded again');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'workdirs/' }));
    assert.equal(listed.KeyCount, 1);

    const out = join(dir.path, 'out-plain');
    mkdirSync(out, { recursive: true });
    const stateDir = join(dir.path, 'agent-plain');
    const setup = ['echo built-by-setup > built.txt', 'echo ran >> "$OUT_DIR/setup-runs"'];
    const job = jobWith({ workdir: uri, setup }, out, await freePort(), [0, 1]);
    const { end } = await runToEnd(job, stateDir);
    assert.equal(end.type, 'finished', JSON.stringify(end));
    const work = join(stateDir, 'workspaces', job.jobId, 'work');
    for (const rank of [0, 1]) {
      const worker = seen(out, rank);
      assert.equal(worker.cwd, work, 'the command runs in the extracted working directory');
      assert.equal(worker.built, 'built-by-setup', 'setup ran in the same directory first');
    }
    assert.equal(readFileSync(join(out, 'setup-runs'), 'utf8'), 'ran\n', 'setup ran once for both workers');
    const sha = uri.match(/([0-9a-f]{64})/)![1]!;
    assert.deepEqual(readdirSync(join(stateDir, 'workdir-cache')), [`${sha}.tar.gz`]);
  });

  test('a failing setup fails the job with its exit code and output', async () => {
    const { uri } = await uploadMyproj();
    const out = join(dir.path, 'out-failing');
    mkdirSync(out, { recursive: true });
    const setup = ['echo preparing', 'echo "no such requirement" >&2; exit 3', 'echo never'];
    const job = jobWith({ workdir: uri, setup }, out, await freePort(), [0]);
    const { end } = await runToEnd(job, join(dir.path, 'agent-failing'));
    assert.equal(end.type, 'failed');
    assert.match(JSON.stringify(end), /setup failed \(exit 3\): preparing\\nno such requirement/);
    assert.equal(existsSync(join(out, 'rank-0.json')), false, 'the command never ran');
  });

  test('an archive that is not in the bucket fails the job naming the object', async () => {
    const out = join(dir.path, 'out-missing');
    mkdirSync(out, { recursive: true });
    const missing = `s3://${BUCKET}/workdirs/${'a'.repeat(64)}.tar.gz`;
    const job = jobWith({ workdir: missing }, out, await freePort(), [0]);
    const { end } = await runToEnd(job, join(dir.path, 'agent-missing'));
    assert.equal(end.type, 'failed');
    assert.match(
      JSON.stringify(end),
      /could not download s3:\/\/tessera-checkpoints\/workdirs\/a{64}\.tar\.gz: NoSuchKey/,
    );
  });
});

describe('a job with an image', () => {
  test('setup and each worker run through the container runtime with docker’s arguments', async () => {
    const { uri } = await uploadMyproj();
    const out = join(dir.path, 'out-image');
    mkdirSync(out, { recursive: true });
    const log = join(dir.path, 'runtime.log');
    process.env.STAND_IN_RUNTIME_LOG = log;
    process.env.HOST_ONLY = 'must not reach the container';
    const stateDir = join(dir.path, 'agent-image');
    const image = 'pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime';
    const setup = ['echo built-in-image > built.txt'];
    const job = {
      ...jobWith({ workdir: uri, image, setup }, out, await freePort(), [2, 5]),
      checkpointUri: local.checkpointUri('job-image'),
      jobId: 'job-image',
    };
    try {
      const { end } = await runToEnd(job, stateDir, RUNTIME);
      assert.equal(end.type, 'finished', JSON.stringify(end));
    } finally {
      delete process.env.STAND_IN_RUNTIME_LOG;
      delete process.env.HOST_ONLY;
    }
    const work = join(stateDir, 'workspaces', job.jobId, 'work');
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { argv: string[]; gpus: string | null; error?: string });
    assert.deepEqual(
      calls.filter((c) => c.error),
      [],
    );
    const [setupCall, ...workerCalls] = calls;
    assert.deepEqual(setupCall!.argv.slice(-3), ['sh', '-c', 'set -e\necho built-in-image > built.txt']);
    assert.equal(setupCall!.gpus, null, 'setup gets no GPU');
    assert.deepEqual(workerCalls.map((c) => c.gpus).sort(), ['device=2', 'device=5']);
    for (const call of workerCalls) {
      const argv = call.argv.join(' ');
      assert.match(argv, /^run --rm --init --name tessera-job-\w+-g1-a\d+-r\d --gpus device=\d/);
      assert.ok(argv.includes(`--network host --ipc host -v ${work}:/workspace -w /workspace`), argv);
      assert.ok(argv.includes('-e CUDA_VISIBLE_DEVICES=0 '), argv);
      const staged = /-v (\S+):(\S+) -e /.exec(argv);
      assert.ok(staged && staged[1] === staged[2], `the staged checkpoint directory is mounted: ${argv}`);
      assert.ok(staged[1]!.startsWith(stateDir), 'staged on the host’s disk');
      assert.ok(argv.endsWith(`${image} ${process.execPath} train.mjs`), argv);
    }
    for (const rank of [0, 1]) {
      const worker = seen(out, rank);
      assert.equal(worker.cwd, work, 'the mounted working directory');
      assert.equal(worker.built, 'built-in-image', 'setup ran in the image, in the same directory');
      assert.equal(worker.env.CUDA_VISIBLE_DEVICES, '0', 'GPUs renumbered inside the container');
      assert.equal(worker.env.TESSERA_RANK, String(rank));
      assert.equal(worker.env.OUT_DIR, out, 'the job’s own variables');
      assert.ok(
        worker.env.TESSERA_CHECKPOINT_URI!.startsWith(fileUri(stateDir)),
        `the trainer sees the staged local directory: ${worker.env.TESSERA_CHECKPOINT_URI}`,
      );
      assert.equal(worker.env.HOST_ONLY, undefined, 'nothing else of the host');
    }
  });
});
