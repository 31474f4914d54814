// Measures checkpoint staging through the local endpoint's S3 (s3rver behind the endpoint port):
//   node --import tsx scripts/checkpoint-io.ts [--sizes-mb 100,1000] [--rescale-mb 100] [--repeat 1]
// 1. upload and restore (download) time of one checkpoint step of each size, the agent's own code
//    (S3CheckpointStore: multipart upload, COMPLETE last; download into a temporary directory);
// 2. the time a rescale costs (desired state changed → first step of the new generation) with the simulated
//    trainer writing a checkpoint of --rescale-mb, with the checkpoint on local disk and staged through S3.
// Prints one JSON object per measurement. Everything it creates lives in a temporary directory it removes.
import { createHash, randomFillSync } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { HostAgent } from '../agents/host/agent.ts';
import { SimulatedGpuDiscovery } from '../agents/host/discovery/simulated-gpus.ts';
import { InMemoryDesiredStateSource } from '../agents/host/ports/desired-state-source.ts';
import { InMemoryTelemetrySink } from '../agents/host/ports/telemetry-sink.ts';
import { CheckpointStaging } from '../agents/host/storage/checkpoint-staging.ts';
import { S3CheckpointStore } from '../agents/host/storage/s3-checkpoint-store.ts';
import { createS3Client } from '../agents/host/storage/s3-client.ts';
import { startLocalEndpoint } from '../lib/local/endpoint/index.ts';
import type { DesiredJob } from '../lib/protocol/desired-state.ts';

const { values } = parseArgs({
  options: {
    'sizes-mb': { type: 'string', default: '100,1000' },
    'rescale-mb': { type: 'string', default: '100' },
    repeat: { type: 'string', default: '1' },
  },
});
const MB = 1024 * 1024;
const BUCKET = 'bench-checkpoints';
const SIM_TRAINER = resolve(import.meta.dirname, '../agents/host/sim-trainer.mjs');
const work = mkdtempSync(join(tmpdir(), 'tessera-ckpt-io-'));
const endpoint = await startLocalEndpoint({ port: 0, dataDir: join(work, 'endpoint') });
const client = createS3Client({
  endpoint: endpoint.url,
  region: 'us-east-1',
  credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
});
const store = new S3CheckpointStore(client);
const seconds = (from: number) => Number(((performance.now() - from) / 1000).toFixed(3));
const print = (row: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(row)}\n`);

/** A step directory with one file of random bytes (incompressible, like weights) and COMPLETE. */
function writeStep(dir: string, bytes: number): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256');
  const fd = openSync(join(dir, 'weights.bin'), 'w');
  const block = Buffer.alloc(8 * MB);
  for (let written = 0; written < bytes; written += block.length) {
    const chunk = block.subarray(0, Math.min(block.length, bytes - written));
    randomFillSync(chunk);
    hash.update(chunk);
    writeSync(fd, chunk);
  }
  closeSync(fd);
  writeFileSync(join(dir, 'COMPLETE'), '1\n');
  return hash.digest('hex');
}

async function transfer(sizeMb: number, round: number): Promise<void> {
  const uri = `s3://${BUCKET}/jobs/io-${sizeMb}-${round}/checkpoints`;
  const source = join(work, `src-${sizeMb}-${round}`, 'step-1');
  const digest = writeStep(source, sizeMb * MB);
  let started = performance.now();
  await store.upload(uri, 1, source);
  const upload = seconds(started);
  const target = join(work, `dst-${sizeMb}-${round}`, 'step-1');
  started = performance.now();
  await store.download(uri, 1, target);
  const restore = seconds(started);
  const same =
    createHash('sha256')
      .update(readFileSync(join(target, 'weights.bin')))
      .digest('hex') === digest;
  print({
    suite: 'checkpoint-io',
    setup: `${sizeMb} MB`,
    upload,
    restore,
    uploadMBps: +(sizeMb / upload).toFixed(1),
    restoreMBps: +(sizeMb / restore).toFixed(1),
    identical: same,
  });
  rmSync(join(work, `src-${sizeMb}-${round}`), { recursive: true, force: true });
  rmSync(join(work, `dst-${sizeMb}-${round}`), { recursive: true, force: true });
}

function simJob(
  jobId: string,
  generation: number,
  gpus: number[],
  checkpointUri: string,
  bytes: number,
): DesiredJob {
  return {
    jobId,
    jobGeneration: generation,
    worldSize: gpus.length,
    maxP: 2,
    totalSteps: 100_000,
    checkpointUri,
    resumeStep: -1,
    masterAddr: '127.0.0.1',
    masterPort: 20_000 + Math.floor(Math.random() * 20_000),
    command: [process.execPath, SIM_TRAINER, '--step-ms', '20', '--checkpoint-bytes', String(bytes)],
    workers: gpus.map((gpu, rank) => ({
      rank,
      localRank: rank,
      gpuIndices: [gpu],
      ests: gpus.length === 2 ? [rank] : [0, 1],
    })),
  };
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Desired state changed (2 → 1 GPU) → first progress of generation 2, on one agent. */
async function rescale(mode: 'local' | 's3', sizeMb: number, round: number): Promise<void> {
  const stateDir = join(work, `agent-${mode}-${round}`);
  const jobId = `rescale-${mode}-${round}`;
  const uri =
    mode === 's3' ? `s3://${BUCKET}/jobs/${jobId}/checkpoints` : pathToFileURL(join(stateDir, 'ckpt')).href;
  const desired = new InMemoryDesiredStateSource();
  const telemetry = new InMemoryTelemetrySink();
  const agent = new HostAgent({
    hostId: 'bench',
    identity: { instanceId: null, instanceType: null, availabilityZone: null },
    topology: null,
    gpus: new SimulatedGpuDiscovery({ count: 2, type: 'A100', hostId: 'bench' }),
    desiredState: desired,
    telemetry,
    stateDir,
    timings: {
      pollIntervalMs: 10,
      heartbeatIntervalMs: 1_000,
      tickIntervalMs: 5,
      telemetryFlushIntervalMs: 10,
      spotPollIntervalMs: 1_000,
      checkpointTimeoutMs: 120_000,
      spotDeadlineMs: 120_000,
      drainTimeoutMs: 120_000,
      maxCrashes: 1,
      backoffBaseMs: 100,
      backoffMaxMs: 100,
      progressIntervalMs: 0,
    },
    checkpointStaging: new CheckpointStaging({ store, stateDir }),
  });
  desired.set({ hostId: 'bench', generation: 1, jobs: [simJob(jobId, 1, [0, 1], uri, sizeMb * MB)] });
  await agent.start();
  await waitFor(
    () => telemetry.ofType('progress').find((m) => m.jobGeneration === 1 && m.step >= 5),
    'generation 1',
  );
  const started = performance.now();
  desired.set({ hostId: 'bench', generation: 2, jobs: [simJob(jobId, 2, [0], uri, sizeMb * MB)] });
  await waitFor(() => telemetry.ofType('progress').find((m) => m.jobGeneration === 2), 'generation 2');
  const total = seconds(started);
  const checkpointed = telemetry.ofType('checkpointed').find((m) => m.jobGeneration === 1);
  print({
    suite: 'checkpoint-io',
    setup: `rescale ${sizeMb} MB`,
    mode,
    seconds: total,
    checkpointUri: checkpointed?.uri,
  });
  desired.set({ hostId: 'bench', generation: 3, jobs: [] });
  await waitFor(() => telemetry.ofType('stopped').find((m) => m.jobGeneration === 2), 'stop');
  await agent.drainAndStop();
}

try {
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const rounds = Number(values.repeat);
  for (let round = 0; round < rounds; round++) {
    for (const size of values['sizes-mb']!.split(',').map(Number)) await transfer(size, round);
    for (const mode of ['local', 's3'] as const) await rescale(mode, Number(values['rescale-mb']), round);
  }
} finally {
  client.destroy();
  await endpoint.stop();
  rmSync(work, { recursive: true, force: true });
}
