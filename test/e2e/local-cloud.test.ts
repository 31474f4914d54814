// The whole system through its real parts: `tessera local` as a process (local AWS endpoint with DynamoDB Local,
// the real Lambda handlers, the EC2 shim, host-agent processes, simulated trainers), driven by the real CLI.
// A job is submitted from a YAML file and finishes on an instance the fleet launched; a running job is cancelled;
// an agent is killed mid-run and its job is requeued and finishes elsewhere; a job's output is read with
// `tessera logs`, also after its host died; SIGINT leaves no process behind.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { TesseraClient } from '../../lib/client/index.ts';
import type { JobView } from '../../lib/client/types.ts';
import { SIM_TRAINER } from '../../lib/local/cloud/demo-workload.ts';
import { INSTANCE_ENV, pidsWithEnv, signalAll } from '../../lib/local/cloud/process-marks.ts';
import { ownLocalCloud } from '../support/local-cloud-args.ts';

const CLI = join(import.meta.dirname, '../../bin/tessera-cli.mjs');
const MARK = 'TESSERA_E2E_MARK';
const mark = randomBytes(6).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'tessera-e2e-'));
const credentials = { AWS_ACCESS_KEY_ID: 'e2e', AWS_SECRET_ACCESS_KEY: 'e2e', AWS_REGION: 'us-east-1' };
let cloud: ChildProcess;
let exited: Promise<number | null>;
let apiUrl = '';
let dashboardUrl = '';
let endpointUrl = '';
let client: TesseraClient;

const jobFile = (name: string, iterations: number, gpus = 1) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      'model: resnet50',
      'batchSize: 32',
      `gpus: ${gpus}`,
      'gpuTypes: [T4]',
      `iterations: ${iterations}`,
      `command: [node, ${JSON.stringify(SIM_TRAINER)}, --step-ms, "50"]`,
      '',
    ].join('\n'),
  );
  return file;
};

const cliOutput = (...args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...credentials, TESSERA_ENDPOINT: apiUrl },
  });
const cli = async (...args: string[]): Promise<string> => (await cliOutput(...args)).stdout;

const waitFor = async <T>(what: string, seconds: number, check: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
};

const jobWhen = (id: string, what: string, seconds: number, ok: (job: JobView) => boolean) =>
  waitFor(what, seconds, async () => {
    const job = await client.getJob(id);
    return ok(job) ? job : undefined;
  });

/** The job once it ended, asserted finished (a failure shows its reason). */
const finished = async (id: string, what: string, seconds: number): Promise<JobView> => {
  const done = await jobWhen(id, what, seconds, (j) => j.status === 'finished' || j.status === 'failed');
  assert.equal(done.status, 'finished', done.failureReason);
  return done;
};

const kinds = (job: JobView) => job.timeline.map((e) => e.kind);

/**
 * Processes of one simulated instance of this run: instance ids repeat from run to run, and other local clouds
 * (other test runs on the machine) may have an instance of the same id.
 */
const processesOf = (host: string) => {
  const ours = new Set(pidsWithEnv(MARK, mark));
  return pidsWithEnv(INSTANCE_ENV, host).filter((pid) => ours.has(pid));
};

before(async () => {
  const started = Date.now();
  cloud = spawn(
    process.execPath,
    [
      CLI,
      'local',
      '--fresh',
      ...ownLocalCloud(join(dir, 'state')),
      '--round',
      '2',
      '--heartbeat-timeout',
      '12',
      '--hosts',
      '3',
      '--gpu-types',
      'T4',
      '--no-demo',
    ],
    { env: { ...process.env, [MARK]: mark }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  cloud.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  exited = new Promise((resolve) => cloud.once('exit', (code) => resolve(code)));
  apiUrl = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    cloud.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /API:\s+(\S+)/.exec(stdout)?.[1];
      const dashboard = /dashboard:\s+(\S+)/.exec(stdout)?.[1];
      if (url && dashboard) {
        dashboardUrl = dashboard;
        endpointUrl = /AWS endpoint:\s+(\S+)/.exec(stdout)?.[1] ?? '';
        resolve(url);
      }
    });
    void exited.then((code) =>
      reject(new Error(`tessera local exited (${code}) before it was ready:\n${stderr}`)),
    );
  });
  process.stderr.write(`# local cloud ready after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  client = new TesseraClient({
    endpoint: apiUrl,
    credentials: { accessKeyId: 'e2e', secretAccessKey: 'e2e' },
  });
});

after(async () => {
  if (cloud && cloud.exitCode === null) {
    cloud.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('the dashboard printed at start serves its page and the cluster through the real API', async () => {
  const page = await fetch(dashboardUrl);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<html/i);
  const overview = await fetch(new URL('/api/overview', dashboardUrl));
  assert.equal(overview.status, 200);
  const body = (await overview.json()) as Record<string, unknown>;
  assert.ok('cluster' in body && 'jobs' in body, Object.keys(body).join(', '));
});

test('submit from a YAML file: the fleet launches an instance, its agent runs the trainer, the job finishes', async () => {
  const out = JSON.parse(await cli('submit', jobFile('short', 40), '--json'));
  assert.equal(out.created, true);
  const id: string = out.job.jobId;
  const done = await finished(id, 'the job to finish', 60);
  assert.equal(done.progress, 40);
  // Between start and finish only rescales: with nobody waiting, the policy may grow the running job onto idle
  // GPUs, and whether a round falls inside its 2 s run depends on the machine's load.
  const timeline = kinds(done);
  assert.deepEqual(timeline.slice(0, 2), ['submitted', 'started']);
  assert.equal(timeline.at(-1), 'finished');
  assert.ok(
    timeline.slice(2, -1).every((kind) => kind === 'rescaled'),
    timeline.join(', '),
  );
  const host = done.timeline[1]!.hosts![0]!;
  assert.match(host, /^i-[0-9a-f]{17}$/, 'placed on an instance the fleet launched on the EC2 shim');
  const cluster = JSON.parse(await cli('cluster', '--json'));
  assert.ok(
    cluster.hosts.some((h: { hostId: string; gpuType: string }) => h.hostId === host && h.gpuType === 'T4'),
  );
  // The final checkpoint went where a deployed stack puts it: the stack's bucket, jobs/<id>/checkpoints/.
  const s3 = new S3Client({
    endpoint: endpointUrl,
    region: 'us-east-1',
    credentials: { accessKeyId: 'e2e', secretAccessKey: 'e2e' },
    forcePathStyle: true,
  });
  const keys: string[] = [];
  for (const bucket of (await s3.send(new ListBucketsCommand({}))).Buckets ?? []) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket.Name, Prefix: `jobs/${id}/` }));
    keys.push(...(listed.Contents ?? []).map((object) => object.Key!));
  }
  s3.destroy();
  assert.ok(keys.includes(`jobs/${id}/checkpoints/step-40/COMPLETE`), `objects: ${keys.join(', ')}`);
});

test('a model outside the catalog: submitted without a profile, estimated, then calibrated from its telemetry', async () => {
  const file = join(dir, 'own.yaml');
  writeFileSync(
    file,
    [
      'name: own',
      'model: acme/own-net',
      'batchSize: 32',
      'gpus: 1',
      'gpuTypes: [T4]',
      'iterations: 400',
      `command: [node, ${JSON.stringify(SIM_TRAINER)}, --step-ms, "50"]`,
      '',
    ].join('\n'),
  );
  const submitted = await cli('submit', file);
  assert.match(submitted, /model "acme\/own-net" is not in the catalog and has no profile/);
  const id = submitted.split(/\s+/)[0]!;
  assert.equal((await client.getJob(id)).modelBasis, 'estimated');
  const calibrated = await jobWhen(
    id,
    'the model to be calibrated',
    60,
    (j) => j.modelBasis === 'calibrated',
  );
  assert.ok(calibrated.predictedIterationsPerSecond! > 0);
  const text = await cli('job', id);
  assert.match(text, /model: +acme\/own-net \(calibrated from \d+ throughput report\(s\)\)/);
  assert.match(text, /throughput: +predicted [\d.]+ it\/s on this placement/);
  await cli('cancel', id);
});

test('own code: `workdir: ./myproj` is uploaded to the local S3, the agent runs setup and the script in it', async () => {
  const project = join(dir, 'own-code');
  const out = join(project, 'out');
  cpSync(join(import.meta.dirname, '../fixtures/myproj'), join(project, 'myproj'), { recursive: true });
  mkdirSync(out, { recursive: true });
  const file = join(project, 'job.yaml');
  writeFileSync(
    file,
    [
      'name: own-code',
      'model: resnet50',
      'batchSize: 32',
      'gpus: 1',
      'gpuTypes: [T4]',
      'iterations: 20',
      'workdir: ./myproj',
      'setup: ["echo built-by-setup > built.txt"]',
      'command: [node, train.mjs]',
      `env: { OUT_DIR: ${JSON.stringify(out)} }`,
      '',
    ].join('\n'),
  );
  const out1 = JSON.parse(await cli('submit', file, '--json'));
  const id: string = out1.job.jobId;
  assert.match(out1.job.workdir, /^s3:\/\/[a-z0-9-]+\/workdirs\/[0-9a-f]{64}\.tar\.gz$/);
  const done = await finished(id, 'the job to finish', 60);
  assert.equal(done.progress, 20);
  const seen = JSON.parse(readFileSync(join(out, 'rank-0.json'), 'utf8'));
  assert.equal(seen.built, 'built-by-setup', 'setup ran in the working directory first');
  assert.match(seen.cwd, new RegExp(`/workspaces/${id}/work$`), 'the script ran in the downloaded copy');
  assert.match(await cli('job', id), /workdir: {5}s3:\/\/.*\n {2}setup: {7}echo built-by-setup/);
});

test('cancel a running job: the round stops its workers', async () => {
  const id: string = JSON.parse(await cli('submit', jobFile('long', 100_000), '--json')).job.jobId;
  await jobWhen(id, 'the job to make progress', 60, (j) => j.status === 'running' && j.progress > 0);
  assert.ok(pidsWithEnv('TESSERA_JOB_ID', id).length > 0, 'its worker runs');
  assert.match(await cli('cancel', id), /cancel requested: stops at the next round/);
  const cancelled = await jobWhen(id, 'the job to be cancelled', 30, (j) => j.status === 'cancelled');
  assert.deepEqual(kinds(cancelled).slice(-2), ['cancelRequested', 'cancelled']);
  await waitFor('its worker to exit', 20, async () =>
    pidsWithEnv('TESSERA_JOB_ID', id).length === 0 ? true : undefined,
  );
});

test('an agent killed mid-run: its host is lost, the job is requeued and finishes elsewhere', async () => {
  const id: string = JSON.parse(await cli('submit', jobFile('survivor', 300), '--json')).job.jobId;
  const running = await jobWhen(
    id,
    'the job to make progress',
    60,
    (j) => j.status === 'running' && j.progress >= 20,
  );
  const hosts = running.allocation!.hosts.map((h) => h.hostId);
  const agents = hosts.flatMap((host) =>
    processesOf(host).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('agent.mjs')),
  );
  assert.equal(agents.length, hosts.length, 'one agent per host of the job');
  for (const pid of agents) process.kill(pid, 'SIGKILL');
  const requeued = await jobWhen(id, 'the job to be requeued', 45, (j) => kinds(j).includes('requeued'));
  assert.match(requeued.timeline.find((e) => e.kind === 'requeued')!.detail ?? '', /host i-\w+ is lost/);
  const done = await finished(id, 'the requeued job to finish', 90);
  const restart = done.timeline.filter((e) => e.kind === 'started').at(-1)!;
  assert.ok(
    restart.hosts!.every((h) => !hosts.includes(h)),
    `restarted on ${restart.hosts} after ${hosts} was lost`,
  );
  const text = await cli('job', id);
  assert.match(text, /requeued\s+host i-\w+ is lost/);
});

/** Every line of a job's logs, page after page (the client as the CLI uses it). */
const allLogLines = async (id: string) => {
  const lines: { rank: number; stream: string; text: string }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await client.logs(id, cursor ? { cursor } : {});
    lines.push(...page.lines);
    cursor = page.nextCursor;
    if (!page.more) return lines;
  }
};
const reportEvent = (text: string) => (JSON.parse(text) as { event: string }).event;

test('tessera logs: a job’s output through the CLI, followed until the job ended and its logs drained', async () => {
  const id: string = JSON.parse(await cli('submit', jobFile('talker', 40), '--json')).job.jobId;
  const followed = (await cli('logs', id, '--follow', '--json', '--interval', '1'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { rank: number; stream: string; text: string; at: number });
  assert.equal((await client.getJob(id)).status, 'finished', 'follow returns once the job ended');
  const events = followed.map((l) => reportEvent(l.text));
  assert.equal(events[0], 'started');
  assert.equal(events.at(-1), 'finished');
  assert.ok(events.includes('progress'));
  assert.ok(followed.every((l) => l.rank === 0 && l.stream === 'stdout'));
  const plain = (await cli('logs', id, '--rank', '0')).trim().split('\n');
  assert.deepEqual(
    plain,
    followed.map((l) => l.text),
  );
  const noRank = await cliOutput('logs', id, '--rank', '7');
  assert.equal(noRank.stdout, '');
  assert.equal(
    noRank.stderr.trim(),
    `no output from rank 7 of job ${id}: it is finished; no rank 7, or it printed nothing`,
  );
});

test('tessera logs and tessera job on a job that failed before it ever started say no worker ran', async () => {
  // 64 T4s: more than the three local hosts can ever give, so the round fails it as unschedulable.
  const id: string = JSON.parse(await cli('submit', jobFile('never-ran', 40, 64), '--json')).job.jobId;
  const failed = await jobWhen(id, 'the job to fail as unschedulable', 30, (j) => j.status === 'failed');
  assert.ok(!kinds(failed).includes('started'));
  const logs = await cliOutput('logs', id);
  assert.equal(logs.stdout, '');
  assert.equal(logs.stderr.trim(), `no output from job ${id}: it is failed and never started, no worker ran`);
  assert.match(await cli('job', id), /output: +none: it never started, no worker ran$/m);
});

test('a host killed mid-run: the lines its agent shipped stay readable, also after the job finished elsewhere', async () => {
  const id: string = JSON.parse(await cli('submit', jobFile('witness', 300), '--json')).job.jobId;
  const running = await jobWhen(
    id,
    'the job to make progress',
    60,
    (j) => j.status === 'running' && j.progress >= 20,
  );
  const host = running.allocation!.hosts[0]!.hostId;
  await waitFor('progress lines shipped', 20, async () =>
    (await allLogLines(id)).some((l) => reportEvent(l.text) === 'progress') ? true : undefined,
  );
  // The whole host dies: its agent and its worker, nothing flushed on the way out.
  const workers = pidsWithEnv('TESSERA_JOB_ID', id); // workers do not inherit the instance mark
  assert.equal(workers.length, 1, 'its one worker runs');
  signalAll([...processesOf(host), ...workers], 'SIGKILL');
  const shipped = await allLogLines(id);
  assert.ok(shipped.length >= 2, `${shipped.length} lines shipped before the host died`);
  assert.equal((await client.logs(id)).drained, false, 'the dead worker never shipped a final chunk');
  await finished(id, 'the requeued job to finish', 120);
  const all = await waitFor('the second run’s last line', 20, async () => {
    const lines = await allLogLines(id);
    return reportEvent(lines.at(-1)!.text) === 'finished' ? lines : undefined;
  });
  assert.deepEqual(all.slice(0, shipped.length), shipped, 'the dead host’s lines first, unchanged');
  assert.equal(all.filter((l) => reportEvent(l.text) === 'started').length, 2, 'both runs of rank 0');
});

test('SIGINT stops every process the local cloud started', async () => {
  assert.ok(pidsWithEnv(MARK, mark).length > 1, 'agents (and DynamoDB Local) carry the mark while running');
  cloud.kill('SIGINT');
  assert.equal(await exited, 0);
  await waitFor('no process of the run to remain', 10, async () =>
    pidsWithEnv(MARK, mark).length === 0 ? true : undefined,
  );
});
