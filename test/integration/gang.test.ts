// A gang over two hosts through the real parts: the control plane (real round and telemetry handlers on the local
// endpoint), three host-agent processes with 2 simulated GPUs each, and the PyTorch trainer with gloo. One 4-GPU
// job is placed 2 + 2 over two agents, rendezvouses at rank 0's host and trains; one of its hosts dies (agent and
// workers SIGKILLed). The survivors' workers lose their peers (exit 76), their agent stops the job's part there
// and reports the gang broken; the control plane requeues the whole job, declares the dead host lost and places
// the job again from its checkpoint on the two live hosts, where it finishes with exactly the bits of the same job
// run on one host with 4 workers. Skipped without torch.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildAgent } from '../../agents/host/build.ts';
import type { JobItem } from '../../lib/aws/items/job-item.ts';
import { parseReportLine, type WorkerReport } from '../../lib/protocol/worker-protocol.ts';
import { assertNoOrphans, tempDir } from '../agents/host/helpers.ts';
import {
  checkpointDifference,
  PYTHON,
  readCheckpointMeta,
  runStraight,
  TRAINER_DIR,
  torchMissingReason,
} from '../agents/host/python-trainer.ts';
import { AgentHosts, roundEverySecond } from './support/agent-hosts.ts';
import { admitHosts, eventually, fifoWithoutLaunches, submit } from './support/fixtures.ts';
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

const SKIP_REASON = torchMissingReason();
const HOSTS = ['gang-a', 'gang-b', 'gang-c'];
const TOTAL_STEPS = 300;
const FIRST_CHECKPOINT = 20;
/** Marks every process of one simulated host (agent and workers inherit it), so the test can kill the host. */
const HOST_MARK = 'GANG_TEST_HOST';
/** This run's own mark: a concurrent run of the same test (same host ids) is never touched. */
const RUN = randomBytes(6).toString('hex');
const HEARTBEAT_TIMEOUT_SECONDS = 5;

const dir = tempDir('tessera-gang-');
let cp: ControlPlane;
let hosts: AgentHosts;
let stopRounds: (() => void) | undefined;

before(async () => {
  if (SKIP_REASON) return;
  cp = await startControlPlane(fifoWithoutLaunches(HEARTBEAT_TIMEOUT_SECONDS));
  cp.runner.startEventSources(['telemetry']);
  const [bundle] = await buildAgent(join(dir.path, 'agent'));
  hosts = new AgentHosts({ cp, bundle: bundle!, dir: dir.path, mark: HOST_MARK, run: RUN });
  await admitHosts(cp, ...HOSTS);
  for (const hostId of HOSTS) hosts.start(hostId);
  await hosts.registered(
    HOSTS,
    'three agents registered with their address',
    (h) => h.address === '127.0.0.1',
  );
  stopRounds = roundEverySecond(cp);
});

after(async () => {
  stopRounds?.();
  for (const hostId of HOSTS) hosts?.kill(hostId);
  await assertNoOrphans(hosts?.pids ?? []).finally(async () => {
    await cp?.stop();
    dir.cleanup();
  });
});

/** The tail of every worker's stderr on every host, for failure messages. */
const workerStderr = () =>
  HOSTS.flatMap((hostId) => {
    const logs = join(dir.path, hostId, 'logs');
    return existsSync(logs)
      ? readdirSync(logs)
          .filter((f) => f.endsWith('.err'))
          .map(
            (f) =>
              `--- ${hostId} ${decodeURIComponent(f)}\n${readFileSync(join(logs, f), 'utf8').slice(-1_500)}`,
          )
      : [];
  }).join('\n');

/** Report lines of one generation's workers, from every host's agent logs. */
const reportsOf = (jobId: string, generation: number): WorkerReport[] =>
  HOSTS.flatMap((hostId) => {
    const logs = join(dir.path, hostId, 'logs');
    const prefix = encodeURIComponent(`${jobId}/g${generation}/`);
    return existsSync(logs)
      ? readdirSync(logs)
          .filter((f) => f.startsWith(prefix) && f.endsWith('.out'))
          .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n'))
      : [];
  })
    .map(parseReportLine)
    .flatMap((parsed) => (parsed.kind === 'report' ? [parsed.report] : []));

const job = (jobId: string) => cp.jobs.get(jobId) as Promise<JobItem>;
const jobWhen = (jobId: string, what: string, seconds: number, ok: (j: JobItem) => boolean) =>
  eventually(
    async () => {
      const item = await job(jobId);
      if (item.status === 'failed') throw new Error(`job failed: ${item.failureReason}\n${workerStderr()}`);
      return ok(item) ? item : undefined;
    },
    what,
    seconds * 1000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${workerStderr()}`);
  });
const hostsOf = (item: JobItem) => item.allocation?.slices.map((s) => s.hostId) ?? [];

test('a 4-worker job over two hosts trains, survives the death of one host as a gang and ends bitwise equal to one host', {
  skip: SKIP_REASON ?? false,
  timeout: 150_000,
}, async (t) => {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
  const submitted = await submit(cp, {
    model: 'resnet50',
    batchSize: 8,
    gpus: 4,
    gpuTypes: ['A10G'],
    iterations: TOTAL_STEPS,
    command: [
      PYTHON,
      '-m',
      'tessera_trainer.run',
      '--model',
      'small-cnn',
      '--batch-size',
      '8',
      '--collective-timeout',
      '8',
    ],
    env: {
      PYTHONPATH: TRAINER_DIR,
      PYTHONDONTWRITEBYTECODE: '1',
      OMP_NUM_THREADS: '1',
      TESSERA_DEVICE: 'cpu',
      TESSERA_CHECKPOINT_EVERY: String(FIRST_CHECKPOINT),
    },
  });
  assert.ok(submitted.status < 300, JSON.stringify(submitted.body));
  const jobId = submitted.body.job.jobId as string;

  // 2 + 2 over two agents; both halves find the same rendezvous and ranks.
  const placed = await jobWhen(jobId, 'the job placed over two hosts', 30, (j) => hostsOf(j).length === 2);
  const [master, second] = hostsOf(placed) as [string, string];
  const parts = await eventually(
    async () => {
      const hosts = await Promise.all([master, second].map((h) => cp.hosts.get(h)));
      const found = hosts.map((h) => h?.desired?.jobs.find((j) => j.jobId === jobId));
      return found.every((j) => j?.jobGeneration === placed.jobGeneration) ? found.map((j) => j!) : undefined;
    },
    'both hosts told to run their part',
    10_000,
  );
  assert.deepEqual(
    parts.map((p) => [p.masterAddr, p.masterPort, p.worldSize, p.workers.map((w) => [w.rank, w.localRank])]),
    [
      [
        '127.0.0.1',
        placed.masterPort,
        4,
        [
          [0, 0],
          [1, 1],
        ],
      ],
      [
        '127.0.0.1',
        placed.masterPort,
        4,
        [
          [2, 0],
          [3, 1],
        ],
      ],
    ],
  );
  // Training across the two hosts: the host dies as soon as rank 0 has written a checkpoint (seen on disk, at once).
  // Where the round puts a job's checkpoints under the checkpoint root (checkpointUriOf).
  const checkpointDir = join(cp.checkpointDir, 'jobs', jobId, 'checkpoints');
  await jobWhen(jobId, 'training across the two hosts to a checkpoint', 60, () =>
    existsSync(join(checkpointDir, `step-${FIRST_CHECKPOINT}`, 'COMPLETE')),
  );
  t.diagnostic(`${seconds()} s: ranks on ${master} and ${second} wrote checkpoint ${FIRST_CHECKPOINT}`);

  // The host of ranks 2 and 3 dies.
  const killed = hosts.kill(second);
  t.diagnostic(`${seconds()} s: killed host ${second} (${killed.length} processes)`);
  const requeued = await jobWhen(jobId, 'the gang requeued', 30, (j) =>
    (j.timeline ?? []).some((e) => e.kind === 'requeued'),
  );
  const requeue = requeued.timeline!.find((e) => e.kind === 'requeued')!;
  assert.match(requeue.detail ?? '', new RegExp(`gang broken on host ${master}|host ${second} is lost`));
  t.diagnostic(`${seconds()} s: ${requeue.detail}`);

  // Placed again on the two live hosts, from a checkpoint, and finished there.
  const finished = await jobWhen(
    jobId,
    'the job to finish on the live hosts',
    90,
    (j) => j.status === 'finished',
  );
  t.diagnostic(`${seconds()} s: finished after ${finished.restarts} restart(s)`);
  const restart = [...(finished.timeline ?? [])].reverse().find((e) => e.kind === 'started')!;
  assert.match(restart.detail ?? '', /from step (\d+)/, 'resumed from a checkpoint');
  const resumedFrom = Number(/from step (\d+)/.exec(restart.detail ?? '')![1]);
  assert.ok(
    resumedFrom >= FIRST_CHECKPOINT && resumedFrom < TOTAL_STEPS,
    `resumed mid-run from step ${resumedFrom}`,
  );
  assert.equal((await cp.hosts.get(second))?.state, 'lost');
  const final = readCheckpointMeta({ dir: checkpointDir, step: TOTAL_STEPS });
  assert.equal(final.writtenBy.worldSize, 4);
  assert.ok(final.generation > placed.jobGeneration, 'the final steps ran in a later placement');
  // Every rank of the final placement, on both hosts, started from that step and finished every step.
  const last = reportsOf(jobId, final.generation);
  const startedAt = last.flatMap((r) => (r.event === 'started' ? [[r.rank, r.step]] : []));
  assert.deepEqual(
    startedAt.sort(([a], [b]) => a! - b!),
    [0, 1, 2, 3].map((rank) => [rank, resumedFrom]),
  );
  assert.deepEqual(
    last.flatMap((r) => (r.event === 'finished' ? [r.step] : [])),
    [TOTAL_STEPS, TOTAL_STEPS, TOTAL_STEPS, TOTAL_STEPS],
  );
  t.diagnostic(`final placement: ${restart.detail}`);

  // The same job on one host, 4 workers, never stopped: the same bits.
  const reference = await runStraight({
    jobId,
    maxP: 4,
    ests: [[0], [1], [2], [3]],
    totalSteps: TOTAL_STEPS,
    checkpointDir: join(dir.path, 'reference'),
    pids: hosts.pids,
    timeoutMs: 60_000,
  });
  assert.deepEqual(reference.codes, [0, 0, 0, 0], reference.stderr.join('\n'));
  const difference = await checkpointDifference(
    { dir: checkpointDir, step: TOTAL_STEPS },
    { dir: join(dir.path, 'reference'), step: TOTAL_STEPS },
  );
  assert.equal(difference, null, `the gang's final checkpoint differs from one host's at ${difference}`);
  t.diagnostic(`${seconds()} s: bitwise equal to the one-host run`);
});
