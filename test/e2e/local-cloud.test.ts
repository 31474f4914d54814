// The whole system through its real parts: `tessera local` as a process (local AWS endpoint with DynamoDB Local,
// the real Lambda handlers, the EC2 shim, host-agent processes, simulated trainers), driven by the real CLI.
// A job is submitted from a YAML file and finishes on an instance the fleet launched; a running job is cancelled;
// an agent is killed mid-run and its job is requeued and finishes elsewhere; SIGINT leaves no process behind.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { TesseraClient } from '../../lib/client/index.ts';
import type { JobView } from '../../lib/client/types.ts';
import { SIM_TRAINER } from '../../lib/local/cloud/demo-workload.ts';
import { INSTANCE_ENV, pidsWithEnv } from '../../lib/local/cloud/process-marks.ts';

const CLI = join(import.meta.dirname, '../../bin/tessera-cli.mjs');
const MARK = 'TESSERA_E2E_MARK';
const mark = randomBytes(6).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'tessera-e2e-'));
const credentials = { AWS_ACCESS_KEY_ID: 'e2e', AWS_SECRET_ACCESS_KEY: 'e2e', AWS_REGION: 'us-east-1' };
let cloud: ChildProcess;
let exited: Promise<number | null>;
let apiUrl = '';
let dashboardUrl = '';
let client: TesseraClient;

const jobFile = (name: string, iterations: number) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      'model: resnet50',
      'batchSize: 32',
      'gpus: 1',
      'gpuTypes: [T4]',
      `iterations: ${iterations}`,
      `command: [node, ${JSON.stringify(SIM_TRAINER)}, --step-ms, "50"]`,
      '',
    ].join('\n'),
  );
  return file;
};

const cli = async (...args: string[]): Promise<string> => {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...credentials, TESSERA_ENDPOINT: apiUrl },
  });
  return stdout;
};

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

const kinds = (job: JobView) => job.timeline.map((e) => e.kind);

before(async () => {
  const started = Date.now();
  cloud = spawn(
    process.execPath,
    [
      CLI,
      'local',
      '--fresh',
      '--state-dir',
      join(dir, 'state'),
      '--port',
      '0',
      '--api-port',
      '0',
      '--dashboard-port',
      '0',
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
  const done = await jobWhen(
    id,
    'the job to finish',
    60,
    (j) => j.status === 'finished' || j.status === 'failed',
  );
  assert.equal(done.status, 'finished', done.failureReason);
  assert.equal(done.progress, 40);
  assert.deepEqual(kinds(done), ['submitted', 'started', 'finished']);
  const host = done.timeline[1]!.hosts![0]!;
  assert.match(host, /^i-[0-9a-f]{17}$/, 'placed on an instance the fleet launched on the EC2 shim');
  const cluster = JSON.parse(await cli('cluster', '--json'));
  assert.ok(
    cluster.hosts.some((h: { hostId: string; gpuType: string }) => h.hostId === host && h.gpuType === 'T4'),
  );
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
  const done = await jobWhen(
    id,
    'the job to finish',
    60,
    (j) => j.status === 'finished' || j.status === 'failed',
  );
  assert.equal(done.status, 'finished', done.failureReason);
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
    pidsWithEnv(INSTANCE_ENV, host).filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('agent.mjs'),
    ),
  );
  assert.equal(agents.length, hosts.length, 'one agent per host of the job');
  for (const pid of agents) process.kill(pid, 'SIGKILL');
  const requeued = await jobWhen(id, 'the job to be requeued', 45, (j) => kinds(j).includes('requeued'));
  assert.match(requeued.timeline.find((e) => e.kind === 'requeued')!.detail ?? '', /host i-\w+ is lost/);
  const done = await jobWhen(
    id,
    'the requeued job to finish',
    90,
    (j) => j.status === 'finished' || j.status === 'failed',
  );
  assert.equal(done.status, 'finished', done.failureReason);
  const restart = done.timeline.filter((e) => e.kind === 'started').at(-1)!;
  assert.ok(
    restart.hosts!.every((h) => !hosts.includes(h)),
    `restarted on ${restart.hosts} after ${hosts} was lost`,
  );
  const text = await cli('job', id);
  assert.match(text, /requeued\s+host i-\w+ is lost/);
});

test('SIGINT stops every process the local cloud started', async () => {
  assert.ok(pidsWithEnv(MARK, mark).length > 1, 'agents (and DynamoDB Local) carry the mark while running');
  cloud.kill('SIGINT');
  assert.equal(await exited, 0);
  await waitFor('no process of the run to remain', 10, async () =>
    pidsWithEnv(MARK, mark).length === 0 ? true : undefined,
  );
});
