// The fault suite (`npm run test:faults`): the control plane through its real handlers on DynamoDB Local and
// fauxqs behind the local endpoint, under faults. Every case ends with the same audit — zero jobs lost, zero run
// twice, zero stuck — and the suite prints a table of case → outcome.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRoundHandler } from '../../functions/round/handler.ts';
import { createTelemetryHandler } from '../../functions/telemetry/handler.ts';
import type { RoundReport } from '../../lib/aws/round/run-round.ts';
import { scheduledEvent, sqsEvent } from '../../lib/local/runner/index.ts';
import {
  admitHosts,
  callApi,
  heartbeat,
  hostSender,
  jobDocument,
  register,
  sendTelemetry,
  submit,
  telemetryMessages,
} from '../integration/support/fixtures.ts';
import { ACCOUNT, type ControlPlane, REGION, startControlPlane } from '../integration/support/local-stack.ts';
import { type Audit, audit } from './support/audit.ts';
import { writeBurst } from './support/burst.ts';

/** Jobs of the burst case, written between two rounds. */
const BURST = 10_000;

let cp: ControlPlane;
/** Seconds the control plane runs ahead of the wall clock: lets a killed round's lease expire without waiting. */
let skewSeconds = 0;
/** The control plane's clock, epoch seconds. */
const clock = () => Date.now() / 1000 + skewSeconds;
/** When set, the round's DynamoDB client "dies" at this call: it and every later call of that round fail. */
let killAtCall: number | undefined;
let callsThisRound = 0;

const HOSTS = ['f-a', 'f-b', 'f-c', 'f-d'];
const submitted: string[] = [];
const rows: { name: string; outcome: string; audit?: Audit }[] = [];

before(async () => {
  cp = await startControlPlane({
    runner: {
      factories: {
        round: (options) => {
          const real = options.clients!.dynamodb;
          return createRoundHandler({
            ...options,
            clock,
            clients: {
              ...options.clients!,
              dynamodb: {
                send: (command: never) => {
                  callsThisRound++;
                  if (killAtCall !== undefined && callsThisRound >= killAtCall)
                    return Promise.reject(new Error(`round killed at DynamoDB call ${killAtCall}`));
                  return real.send(command);
                },
              } as never,
            },
          });
        },
        telemetry: (options) => createTelemetryHandler({ ...options, clock }),
      },
    },
  });
  await admitHosts(cp, ...HOSTS);
  await telemetry(...HOSTS.map((h) => register(h, 4)));
});

after(async () => {
  printTable();
  await cp?.stop();
});

const round = async (): Promise<RoundReport | Error> => {
  callsThisRound = 0;
  try {
    return await cp.runner.invoke<RoundReport>(
      'round',
      scheduledEvent('arn:aws:events:us-east-1:0:rule/r', REGION, ACCOUNT),
    );
  } catch (error) {
    return error as Error;
  }
};
const telemetry = (...messages: unknown[]) => sendTelemetry(cp, ...messages);
const beatAll = () => telemetry(...HOSTS.map((hostId) => heartbeat(hostId, clock())));
/** Submits through the API, retrying while it answers 503 (throttled). */
const submitJobs = async (count: number, tag: string, gpus = 1) => {
  for (let i = 0; i < count; i++) {
    for (;;) {
      const response = await submit(cp, jobDocument({ clientToken: `${tag}-${i}`, gpus, iterations: 1e9 }));
      if (response.status === 503) continue;
      assert.ok(response.status === 201 || response.status === 200, JSON.stringify(response.body));
      submitted.push(response.body.job.jobId);
      break;
    }
  }
};
/** Rounds until one completes (with fresh heartbeats, and the clock past any lease a killed round left). */
const settle = async () => {
  for (let attempt = 0; attempt < 5; attempt++) {
    skewSeconds += 120; // leases of killed rounds expire (they last at most the Lambda timeout + margin)
    await beatAll();
    const report = await round();
    if (!(report instanceof Error) && report.outcome === 'completed') return report;
  }
  throw new Error('no round completed in 5 attempts');
};
const record = async (name: string, outcome: string) => {
  await settle();
  const result = await audit(cp, submitted);
  rows.push({ name, outcome, audit: result });
  assert.deepEqual([result.lost, result.twice, result.stuck], [[], [], []], name);
};

const printTable = () => {
  const lines = [
    ['case', 'jobs', 'lost', 'twice', 'stuck', 'outcome'],
    ...rows.map((r) => [
      r.name,
      String(r.audit?.jobs ?? '-'),
      String(r.audit?.lost.length ?? '-'),
      String(r.audit?.twice.length ?? '-'),
      String(r.audit?.stuck.length ?? '-'),
      r.outcome,
    ]),
  ];
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  const text = lines.map((l) => l.map((cell, c) => cell.padEnd(widths[c]!)).join('  ')).join('\n');
  process.stdout.write(`\nfault suite\n${text}\n`);
};

describe('faults', () => {
  test('a round killed at each of its DynamoDB calls converges in the next round', async () => {
    await submitJobs(4, 'warm');
    await settle();
    callsThisRound = 0;
    const clean = await round();
    assert.ok(!(clean instanceof Error));
    const calls = callsThisRound;
    for (let k = 1; k <= calls + 2; k++) {
      await submitJobs(1, `kill-${k}`);
      killAtCall = k;
      skewSeconds += 120;
      await beatAll();
      await round();
      killAtCall = undefined;
    }
    await record(`round killed at each of its ${calls} DynamoDB calls`, 'converged');
  });

  test('duplicated, reordered and poison telemetry deliveries', async () => {
    const running = (await Promise.all(submitted.map((id) => cp.jobs.get(id)))).find(
      (j) => j?.status === 'running',
    )!;
    const hostId = running.allocation!.slices[0]!.hostId;
    const progress = (step: number) => ({
      type: 'progress',
      hostId,
      at: clock(),
      jobId: running.jobId,
      jobGeneration: running.jobGeneration,
      step,
      stepTime: 0.1,
      samplesPerSecond: 10,
      gpuUtilization: null,
    });
    await telemetry(progress(300), progress(300), progress(100), 'poison {', { type: 'nope', hostId });
    await telemetry(progress(200));
    assert.equal((await cp.jobs.get(running.jobId))?.progress, 300, 'progress never goes back');
    await record('duplicated, reordered and poison deliveries', 'progress kept at 300; poison to the DLQ');
  });

  test('impersonating telemetry', async () => {
    const victim = (await Promise.all(submitted.map((id) => cp.jobs.get(id)))).find(
      (j) => j?.status === 'running',
    )!;
    const victimHost = victim.allocation!.slices[0]!.hostId;
    const impostor = HOSTS.find((h) => h !== victimHost)!;
    const claim = {
      type: 'finished',
      hostId: victimHost,
      at: clock(),
      jobId: victim.jobId,
      jobGeneration: victim.jobGeneration,
      step: 1e9,
    };
    await cp.runner.invoke(
      'telemetry',
      sqsEvent(telemetryMessages([claim], hostSender(impostor)), 'arn:aws:sqs:us-east-1:0:telemetry', REGION),
    );
    await telemetry({ ...claim, hostId: impostor });
    assert.equal((await cp.jobs.get(victim.jobId))?.status, 'running');
    await record('impersonating telemetry', 'both claims rejected; the job runs on');
  });

  for (const rate of [0.05, 0.2]) {
    test(`throttling on ${rate * 100} % of DynamoDB calls`, async () => {
      const before = cp.local!.setDynamoDbThrottleRate(rate);
      let throttledCalls = 0;
      let failedRounds = 0;
      try {
        await submitJobs(5, `throttle-${rate}`);
        for (let i = 0; i < 4; i++) {
          skewSeconds += 5;
          await beatAll().catch(() => {});
          if ((await round()) instanceof Error) failedRounds++;
        }
      } finally {
        throttledCalls = cp.local!.setDynamoDbThrottleRate(0) - before;
      }
      assert.ok(throttledCalls > 0, 'calls were throttled');
      await record(
        `throttling on ${rate * 100} % of calls`,
        `${throttledCalls} calls throttled (SDK retries), ${failedRounds} of 4 rounds failed; converged`,
      );
    });
  }

  test('oversized specs', async () => {
    const big = await submit(
      cp,
      jobDocument({
        clientToken: 'big',
        gpus: 8,
        command: [
          'python3',
          'x'.repeat(4000),
          'y'.repeat(4000),
          'z'.repeat(4000),
          'w'.repeat(4000),
          'v'.repeat(1000),
        ],
      }),
    );
    assert.equal(big.status, 400);
    assert.match(big.body.message, /command and env together must be at most 16384 bytes/);
    await submitJobs(2, 'after-big');
    await record('oversized specs', 'refused at submit, naming the rule; others placed');
  });

  test('a silent but alive host', async () => {
    const job = (await Promise.all(submitted.map((id) => cp.jobs.get(id)))).find(
      (j) => j?.status === 'running',
    )!;
    const silent = job.allocation!.slices[0]!.hostId;
    skewSeconds += 400;
    await telemetry(...HOSTS.filter((h) => h !== silent).map((hostId) => heartbeat(hostId, clock())));
    await round();
    const host = await cp.hosts.get(silent);
    assert.equal(host?.state, 'lost');
    assert.equal(host?.desired?.stop, true);
    // The rest of the suite runs without it.
    HOSTS.splice(HOSTS.indexOf(silent), 1);
    await record('silent-but-alive host', 'declared lost, told to stop; its jobs requeued once');
  });

  test('a terminal report lost with the agent', async () => {
    const job = (await Promise.all(submitted.map((id) => cp.jobs.get(id)))).find(
      (j) => j?.status === 'running',
    )!;
    const hostId = job.allocation!.slices[0]!.hostId;
    await telemetry({
      type: 'heartbeat',
      hostId,
      at: clock(),
      appliedGeneration: null,
      draining: false,
      evacuating: null,
      gpus: [],
      jobs: [
        {
          jobId: job.jobId,
          jobGeneration: job.jobGeneration,
          phase: 'finished',
          step: 1e9,
          checkpointStep: null,
          crashes: 0,
          workers: [],
        },
      ],
    });
    await round();
    assert.equal((await cp.jobs.get(job.jobId))?.status, 'finished');
    await record(
      'agent killed before its terminal report',
      'ended from the host’s actual state in one round',
    );
  });

  test('the tenant view stays private', async () => {
    const view = await callApi(cp, { method: 'GET', resource: '/cluster', principal: 'nobody' });
    assert.deepEqual(view.body.jobs, {});
    await record('GET /cluster by another tenant', 'no job counts shown');
  });
  test('a 10,000-job burst', async () => {
    const burst = await writeBurst(cp, BURST, 'burst');
    submitted.push(...burst);
    await submitJobs(10, 'after-burst');
    const times: number[] = [];
    let last: RoundReport | undefined;
    for (let i = 0; i < 3; i++) {
      await beatAll();
      const start = performance.now();
      const report = await round(); // the local runner enforces the round Lambda's timeout
      times.push((performance.now() - start) / 1000);
      assert.ok(!(report instanceof Error), `round ${i + 1} after the burst: ${String(report)}`);
      assert.equal(report.outcome, 'completed');
      last = report;
    }
    assert.ok((last?.queued ?? 0) >= BURST, `the round knows every waiting job (${last?.queued})`);
    // No GPU idles while the burst waits.
    const { items: active } = await cp.hosts.listByStates(['active']);
    const gpus = active.reduce((n, h) => n + h.gpuCount, 0);
    const busy = active.reduce(
      (n, h) => n + (h.desired?.jobs ?? []).reduce((m, j) => m + j.workers.length, 0),
      0,
    );
    assert.equal(busy, gpus, 'every GPU busy');
    // GET /cluster reads the round's tenant summary: one item, whatever the length of the queue.
    const viewStart = performance.now();
    const view = await callApi(cp, { method: 'GET', resource: '/cluster', principal: 'tenant-3' });
    const viewSeconds = (performance.now() - viewStart) / 1000;
    assert.equal(view.status, 200);
    const counted = Object.values(view.body.jobs as Record<string, number>).reduce((a, b) => a + b, 0);
    // The burst gives every seventh job to tenant-3: 1,429 of 10,000, queued or already placed.
    assert.equal(counted, Math.ceil((BURST - 3) / 7), `tenant-3's jobs (${JSON.stringify(view.body.jobs)})`);
    await record(
      `${BURST.toLocaleString('en')}-job burst`,
      `rounds ${times.map((t) => t.toFixed(1)).join(', ')} s; all ${last?.queued} waiting known; no GPU idle; GET /cluster ${viewSeconds.toFixed(2)} s`,
    );
  });
});
