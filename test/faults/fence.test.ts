// Fault case "a host cut off from the control plane" through the real parts: the real round and telemetry handlers
// on the local endpoint, two real host-agent processes (bundled as on EC2) with simulated GPUs, and the simulated
// trainer. Each agent reaches the endpoint through its own relay; the relay of the host running the job is cut (a
// network partition: nothing it sends arrives, nothing it reads comes back). Its agent fences itself: the job's
// workers are gone before the control plane declares the host lost; the job then runs on the other host — never
// on both at once — and finishes; when the partition heals, the fenced agent's outbox is delivered and it runs
// nothing. Prints a case → outcome row like the fault suite.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildAgent } from '../../agents/host/build.ts';
import type { JobItem } from '../../lib/aws/items/job-item.ts';
import { fenceTermsFor } from '../../lib/protocol/fence.ts';
import { assertNoOrphans, isAlive, SIM_TRAINER, tempDir } from '../agents/host/helpers.ts';
import { AgentHosts, roundEverySecond } from '../integration/support/agent-hosts.ts';
import { admitHosts, eventually, fifoWithoutLaunches, submit } from '../integration/support/fixtures.ts';
import { type ControlPlane, startControlPlane } from '../integration/support/local-stack.ts';
import { audit } from './support/audit.ts';
import { Partition } from './support/partition.ts';

const HOSTS = ['fence-a', 'fence-b'];
const HEARTBEAT_TIMEOUT_SECONDS = 10;
const TERMS = fenceTermsFor(HEARTBEAT_TIMEOUT_SECONDS);
const STEPS = 500;
/** Marks every process of one simulated host (agent and workers inherit it). */
const HOST_MARK = 'FENCE_TEST_HOST';
const RUN = randomBytes(6).toString('hex');

const dir = tempDir('tessera-fence-');
const stepLog = join(dir.path, 'steps.jsonl');
let cp: ControlPlane;
let hosts: AgentHosts;
const relays = new Map<string, Partition>();
let stopRounds: (() => void) | undefined;

before(async () => {
  cp = await startControlPlane(fifoWithoutLaunches(HEARTBEAT_TIMEOUT_SECONDS));
  cp.runner.startEventSources(['telemetry']);
  const [bundle] = await buildAgent(join(dir.path, 'agent'));
  hosts = new AgentHosts({ cp, bundle: bundle!, dir: dir.path, mark: HOST_MARK, run: RUN });
  await admitHosts(cp, ...HOSTS);
  for (const hostId of HOSTS) {
    const relay = await Partition.open(cp.endpointUrl);
    relays.set(hostId, relay);
    const log = openSync(join(dir.path, `${hostId}.log`), 'a');
    hosts.start(hostId, {
      endpointUrl: relay.url,
      // A partitioned SDK call fails at once (connection refused); a few retries, not minutes of them.
      env: { AWS_MAX_ATTEMPTS: '2' },
      stdio: ['ignore', log, log],
    });
  }
  await hosts.registered(HOSTS, 'two agents registered');
  stopRounds = roundEverySecond(cp);
});

after(async () => {
  stopRounds?.();
  for (const hostId of HOSTS) hosts?.kill(hostId);
  await Promise.all([...relays.values()].map((r) => r.cut()));
  await assertNoOrphans(hosts?.pids ?? []).finally(async () => {
    await cp?.stop();
    dir.cleanup();
  });
});

/** Live worker processes of a host (its processes other than the agent). */
const workersOn = (hostId: string): number[] =>
  hosts.processesOf(hostId).filter((pid) => pid !== hosts.agents.get(hostId)?.pid && isAlive(pid));

interface StepLine {
  generation: number;
  rank: number;
  step: number;
  pid: number;
  time: number;
}
const steps = (): StepLine[] =>
  existsSync(stepLog)
    ? readFileSync(stepLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as StepLine)
    : [];

const job = (jobId: string) => cp.jobs.get(jobId) as Promise<JobItem>;

test('a host cut off from the control plane stops its workers before it is declared lost; the job runs on once', {
  timeout: 120_000,
}, async (t) => {
  const started = Date.now();
  const at = () => ((Date.now() - started) / 1000).toFixed(1);
  const submitted = await submit(cp, {
    model: 'resnet50',
    batchSize: 8,
    gpus: 2,
    gpuTypes: ['A10G'],
    iterations: STEPS,
    command: [process.execPath, SIM_TRAINER, '--step-ms', '20', '--step-log', stepLog],
  });
  assert.ok(submitted.status < 300, JSON.stringify(submitted.body));
  const jobId = submitted.body.job.jobId as string;
  const placed = await eventually(
    async () => {
      const item = await job(jobId);
      return item.status === 'running' && item.allocation ? item : undefined;
    },
    'the job placed',
    30_000,
  );
  const cutHost = placed.allocation!.slices[0]!.hostId;
  const otherHost = HOSTS.find((h) => h !== cutHost)!;
  await eventually(() => (steps().some((s) => s.step >= 20) ? true : undefined), 'training', 30_000);
  const before = workersOn(cutHost);
  assert.equal(before.length, 2, 'two workers run on the host');

  // The partition.
  const cutAt = Date.now();
  await relays.get(cutHost)!.cut();
  t.diagnostic(
    `${at()} s: ${cutHost} cut off (fence after ${TERMS.afterSeconds} s, grace ${TERMS.graceSeconds} s)`,
  );
  const stoppedAt = await eventually(
    () => (workersOn(cutHost).length === 0 ? Date.now() : undefined),
    'the cut-off host to stop its workers',
    HEARTBEAT_TIMEOUT_SECONDS * 3_000,
  );
  t.diagnostic(
    `${at()} s: its workers are gone (${((stoppedAt - cutAt) / 1000).toFixed(1)} s after the cut)`,
  );
  const lost = await eventually(
    async () => {
      const host = await cp.hosts.get(cutHost);
      return host?.state === 'lost' ? host : undefined;
    },
    'the control plane to declare the host lost',
    30_000,
  );
  t.diagnostic(`${at()} s: ${cutHost} declared lost (${lost.stateReason})`);
  // When the round declared it lost, in ms (items store epoch ms, or epoch seconds once converted).
  const lostAt = lost.stateChangedAt < 1e11 ? lost.stateChangedAt * 1000 : lost.stateChangedAt;
  assert.ok(stoppedAt < lostAt, 'the workers were gone before the host was declared lost');
  const lastOldStep = Math.max(
    ...steps()
      .filter((s) => s.generation === placed.jobGeneration)
      .map((s) => s.time),
  );
  assert.ok(lastOldStep < lostAt, 'no step of the old placement after the host was declared lost');

  // The job runs on the other host, from the fenced workers' checkpoint, and finishes.
  const finished = await eventually(
    async () => {
      const item = await job(jobId);
      if (item.status === 'failed') throw new Error(`job failed: ${item.failureReason}`);
      return item.status === 'finished' ? item : undefined;
    },
    'the job to finish on the other host',
    60_000,
  );
  t.diagnostic(`${at()} s: finished`);
  const newer = steps().filter((s) => s.generation > placed.jobGeneration);
  assert.ok(newer.length > 0, 'later steps ran in a newer placement');
  assert.ok(Math.min(...newer.map((s) => s.time)) > lastOldStep, 'the two placements never overlapped');
  const newerPids = new Set(newer.map((s) => s.pid));
  const oldPids = new Set(
    steps()
      .filter((s) => s.generation === placed.jobGeneration)
      .map((s) => s.pid),
  );
  assert.ok([...newerPids].every((pid) => !oldPids.has(pid)));
  const resumed = Math.min(...newer.map((s) => s.step)) - 1;
  const fencedAtStep = Math.max(
    ...steps()
      .filter((s) => s.generation === placed.jobGeneration)
      .map((s) => s.step),
  );
  assert.ok(resumed > 0, `resumed from a checkpoint (step ${resumed}), not from scratch`);
  assert.equal(Math.max(...newer.map((s) => s.step)), STEPS);
  assert.ok(
    (finished.timeline ?? []).some((e) => e.kind === 'requeued' && (e.detail ?? '').includes(cutHost)),
    'requeued off the lost host',
  );
  assert.ok(!newer.some((s) => s.generation === placed.jobGeneration));
  assert.equal(workersOn(otherHost).length, 0, 'the finished job left no worker behind');

  // The partition heals: the fenced agent delivers what it kept and runs nothing (it was given up).
  await relays.get(cutHost)!.heal();
  const outbox = join(dir.path, cutHost, 'telemetry-outbox.json');
  await eventually(
    () => (existsSync(outbox) && JSON.parse(readFileSync(outbox, 'utf8')).length === 0 ? true : undefined),
    'the fenced agent’s outbox delivered',
    30_000,
  );
  const agentLog = readFileSync(join(dir.path, `${cutHost}.log`), 'utf8');
  assert.match(agentLog, /fenced, stopping every worker/);
  assert.equal(workersOn(cutHost).length, 0);
  // The round after the job finished takes it out of the other host's desired state.
  await eventually(
    async () => ((await cp.hosts.get(otherHost))?.desired?.jobs.length === 0 ? true : undefined),
    'the finished job out of the desired states',
    10_000,
  );
  const result = await audit(cp, [jobId]);
  assert.deepEqual([result.lost, result.twice, result.stuck], [[], [], []]);
  process.stdout.write(
    `\nfault suite (fence)\ncase  jobs  lost  twice  stuck  outcome\nhost cut off from the control plane  1  0  0  0  ` +
      `workers stopped ${((stoppedAt - cutAt) / 1000).toFixed(1)} s after the cut, ` +
      `${((lostAt - stoppedAt) / 1000).toFixed(1)} s before the host was declared lost; ` +
      `resumed elsewhere from step ${resumed} (fenced at ${fencedAtStep}); finished once\n`,
  );
});
