// Why a job waits, through the real parts: the round handler records each waiting job's reason, queue position and
// estimated start on its item (changes only), and the API returns them on GET /jobs and GET /jobs/{id}.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sqsEvent } from '../../lib/local/runner/index.ts';
import {
  admitHosts,
  callApi,
  invokeRound,
  jobDocument,
  register,
  submit,
  telemetryMessages,
} from './support/fixtures.ts';
import { type ControlPlane, REGION, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;
before(async () => {
  cp = await startControlPlane({
    // FCFS with per-type head-of-line blocking: sizes stay as asked, so the queue is easy to predict.
    context: { 'tessera:instanceFamilies': 'g5', 'tessera:policy': 'yarn-cs' },
  });
});
after(async () => {
  await cp?.stop();
});

const round = () => invokeRound(cp);

test('a waiting job shows why it waits, its place in the queue and when it should start', async () => {
  // Only hosts the fleet launched may register, and only for themselves (sender-bound telemetry).
  await admitHosts(cp, 'host-w');
  await cp.runner.invoke(
    'telemetry',
    sqsEvent(
      telemetryMessages([register('host-w', 4)]),
      'arn:aws:sqs:us-east-1:000000000000:telemetry',
      REGION,
    ),
  );
  const first = await submit(cp, jobDocument({ clientToken: 'w-first', gpus: 4, iterations: 100_000 }));
  await round();
  assert.equal((await cp.jobs.get(first.body.job.jobId))?.status, 'running');
  const second = await submit(cp, jobDocument({ clientToken: 'w-second', gpus: 4 }));
  const third = await submit(cp, jobDocument({ clientToken: 'w-third', gpus: 2 }));
  const report = await round();
  assert.equal(report.waitWrites, 2);

  const one = await callApi(cp, {
    method: 'GET',
    resource: '/jobs/{id}',
    pathParameters: { id: second.body.job.jobId },
  });
  assert.equal(one.status, 200);
  assert.equal(one.body.job.status, 'queued');
  assert.equal(one.body.job.queuePosition, 1);
  assert.match(one.body.job.waitReason, /^4 × A10G\S* needed, 0 free; first in the queue$/);
  const start = Date.parse(one.body.job.estimatedStart);
  assert.ok(start > Date.now(), `estimated start ${one.body.job.estimatedStart} is in the future`);

  const list = await callApi(cp, { method: 'GET', resource: '/jobs', query: { status: 'queued' } });
  const listed = list.body.jobs.find((j: { jobId: string }) => j.jobId === third.body.job.jobId);
  assert.equal(listed.queuePosition, 2);
  assert.match(listed.waitReason, /needed, 0 free; 1 job ahead$/);

  // Nothing changed: the next round rewrites nothing.
  assert.equal((await round()).waitWrites, 0);
  // A running job shows none of it.
  const running = await callApi(cp, {
    method: 'GET',
    resource: '/jobs/{id}',
    pathParameters: { id: first.body.job.jobId },
  });
  assert.equal(running.body.job.waitReason, undefined);
});
