// Submitting jobs through the API handler and through the SQS submissions queue (event source mapping), with
// idempotency, validation (400 naming field and rule, nothing written) and poison messages (DLQ with reason).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createIngestHandler } from '../../functions/ingest/handler.ts';
import { encodeCursor } from '../../lib/aws/dynamo/pagination.ts';
import { REJECTION_REASON_ATTRIBUTE } from '../../lib/aws/sqs/dead-letter.ts';
import { sqsEvent } from '../../lib/local/runner/index.ts';
import { MAX_JOB_SPEC_BYTES } from '../../lib/protocol/job-spec.ts';
import { callApi, eventually, invokeRound, jobDocument, submit } from './support/fixtures.ts';
import { type ControlPlane, startControlPlane } from './support/local-stack.ts';

let cp: ControlPlane;

before(async () => {
  cp = await startControlPlane({
    runner: {
      factories: {
        // A transient failure for one marked job: the whole batch fails and SQS redelivers it.
        ingest: (options) => {
          const real = createIngestHandler(options);
          return async (event, context) => {
            if (event.Records.some((r: { body: string }) => r.body.includes('"explode"')))
              throw new Error('simulated outage');
            return real(event, context);
          };
        },
      },
    },
  });
});
after(async () => {
  await cp?.stop();
});

const countJobs = async () => {
  const { Count } = await cp.clients.dynamodb.send(
    new ScanCommand({ TableName: cp.jobs.tableName, Select: 'COUNT', ConsistentRead: true }),
  );
  return Count ?? 0;
};

const drain = async (queueUrl: string, waitSeconds = 0) => {
  const { Messages } = await cp.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: waitSeconds,
      MessageAttributeNames: ['All'],
      VisibilityTimeout: 30,
    }),
  );
  return Messages ?? [];
};

describe('API submissions', () => {
  test('a submit creates a queued job of the caller and asks for an early round', async () => {
    const response = await submit(cp, jobDocument({ name: 'first', clientToken: 'tok-1' }));
    assert.equal(response.status, 201);
    assert.equal(response.body.created, true);
    assert.equal(response.body.job.status, 'queued');
    assert.equal(response.body.job.tenant, 'alice');
    const stored = await cp.jobs.get(response.body.job.jobId);
    assert.equal(stored?.spec.model, 'resnet50');
    assert.equal(stored?.clientToken, 'tok-1');
    const events = await drain(cp.queueUrl('QueuesSchedulerEvents'));
    assert.ok(
      events.some(
        (m) =>
          JSON.parse(m.Body!).subject === response.body.job.jobId && JSON.parse(m.Body!).kind === 'arrival',
      ),
    );
  });

  test('the same client token returns the same job; reused for another spec it is refused', async () => {
    const before = await countJobs();
    const a = await submit(cp, jobDocument({ clientToken: 'tok-2' }));
    const b = await submit(cp, jobDocument({ clientToken: 'tok-2' }));
    assert.equal(a.status, 201);
    assert.equal(b.status, 200);
    assert.equal(b.body.created, false);
    assert.equal(b.body.job.jobId, a.body.job.jobId);
    const other = await submit(cp, jobDocument({ clientToken: 'tok-2', gpus: 4 }));
    assert.equal(other.status, 409);
    assert.deepEqual(other.body.issues, [
      { field: 'clientToken', rule: 'must not be reused for a different spec' },
    ]);
    assert.equal(await countJobs(), before + 1);
    const bob = await submit(cp, jobDocument({ clientToken: 'tok-2' }), 'bob');
    assert.equal(bob.status, 201, 'tokens are per tenant');
    assert.notEqual(bob.body.job.jobId, a.body.job.jobId);
  });

  test('bad input: 400 naming every field and rule, nothing written, no round requested', async () => {
    await drain(cp.queueUrl('QueuesSchedulerEvents'));
    const before = await countJobs();
    const cases: [string, unknown, string, RegExp][] = [
      [
        'unknown GPU type',
        jobDocument({ gpuTypes: ['A100', 'Z80'] }),
        'gpuTypes.1',
        /unknown GPU type "Z80"/,
      ],
      ['negative count', jobDocument({ gpus: -4 }), 'gpus', /must be at least 1/],
      ['wrong type', jobDocument({ iterations: '1000' }), 'iterations', /must be an integer/],
      ['unknown field', jobDocument({ gpu: 2 }), 'gpu', /unknown field/],
      [
        'oversized',
        jobDocument({ name: 'x'.repeat(MAX_JOB_SPEC_BYTES) }),
        '(document)',
        /must be at most 65536 bytes/,
      ],
      ['not JSON', '{"model":', '(document)', /must be JSON/],
      [
        'launch settings a host item could not carry',
        jobDocument({
          gpus: 8,
          command: ['python3', 'x'.repeat(4000).repeat(15)].map((c) => c.slice(0, 4096)),
          env: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`V${i}`, 'v'.repeat(4000)])),
        }),
        'command',
        /command and env together must be at most 16384 bytes/,
      ],
      [
        '__proto__ label',
        JSON.stringify(jobDocument({ labels: { team: 'a' } })).replace('"team"', '"__proto__"'),
        'labels.__proto__',
        /reserved key/,
      ],
      ['NUL in command', jobDocument({ command: ['python3', 'a\u0000b'] }), 'command.1', /NUL/],
      [
        'managed env',
        jobDocument({ env: { CUDA_VISIBLE_DEVICES: '0' } }),
        'env.CUDA_VISIBLE_DEVICES',
        /host agent manages/,
      ],
    ];
    for (const [what, body, field, rule] of cases) {
      const response = await submit(cp, body);
      assert.equal(response.status, 400, what);
      const issue = response.body.issues.find((i: { field: string }) => i.field === field);
      assert.ok(issue, `${what}: ${JSON.stringify(response.body)}`);
      assert.match(issue.rule, rule, what);
      assert.match(response.body.message, new RegExp(`${field.replace(/[().]/g, '\\$&')}: `));
    }
    const wrongType = await callApi(cp, {
      method: 'POST',
      resource: '/jobs',
      body: 'model=x',
      headers: { 'Content-Type': 'text/plain' },
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.issues[0].field, 'content-type');
    assert.equal(await countJobs(), before);
    assert.deepEqual(await drain(cp.queueUrl('QueuesSchedulerEvents')), []);
  });
});

describe('API reads and cancel', () => {
  test('lists a tenant’s jobs newest first, page by page, optionally by status', async () => {
    const ids: string[] = [];
    for (const token of ['l1', 'l2', 'l3'])
      ids.push((await submit(cp, jobDocument({ clientToken: token }), 'carol')).body.job.jobId);
    const first = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { limit: '2' },
      principal: 'carol',
    });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.jobs.map((j: { jobId: string }) => j.jobId),
      [ids[2], ids[1]],
    );
    assert.ok(first.body.nextToken);
    const second = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { limit: '2', nextToken: first.body.nextToken },
      principal: 'carol',
    });
    assert.deepEqual(
      second.body.jobs.map((j: { jobId: string }) => j.jobId),
      [ids[0]],
    );
    const running = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { status: 'running' },
      principal: 'carol',
    });
    assert.deepEqual(running.body.jobs, []);
    const badLimit = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { limit: '0', status: 'sleeping' },
      principal: 'carol',
    });
    assert.equal(badLimit.status, 400);
    assert.deepEqual(
      badLimit.body.issues.map((i: { field: string }) => i.field),
      ['limit', 'status'],
    );
    const badToken = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { nextToken: 'garbage' },
      principal: 'carol',
    });
    assert.equal(badToken.status, 400);
    assert.equal(badToken.body.issues[0].field, 'nextToken');
    // A well-formed cursor that names no key of this listing: DynamoDB refuses it, the caller gets a 400.
    const forged = await callApi(cp, {
      method: 'GET',
      resource: '/jobs',
      query: { nextToken: encodeCursor({ jobId: 'job-x', tenant: 'mallory' })! },
      principal: 'carol',
    });
    assert.equal(forged.status, 400, JSON.stringify(forged.body));
    assert.equal(forged.body.issues[0].field, 'nextToken');
  });

  test('another tenant’s job is not found; a malformed id is a 400', async () => {
    const { body } = await submit(cp, jobDocument({ clientToken: 'private' }), 'dave');
    assert.equal(
      (
        await callApi(cp, {
          method: 'GET',
          resource: '/jobs/{id}',
          pathParameters: { id: body.job.jobId },
          principal: 'dave',
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await callApi(cp, {
          method: 'GET',
          resource: '/jobs/{id}',
          pathParameters: { id: body.job.jobId },
          principal: 'eve',
        })
      ).status,
      404,
    );
    const bad = await callApi(cp, {
      method: 'GET',
      resource: '/jobs/{id}',
      pathParameters: { id: 'DROP TABLE' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.issues[0].field, 'id');
  });

  test('cancelling a waiting job cancels it at once; cancelling again is a no-op', async () => {
    const { body } = await submit(cp, jobDocument({ clientToken: 'to-cancel' }));
    const cancel = () =>
      callApi(cp, { method: 'DELETE', resource: '/jobs/{id}', pathParameters: { id: body.job.jobId } });
    const first = await cancel();
    assert.equal(first.status, 200);
    assert.equal(first.body.job.status, 'cancelled');
    assert.equal((await cancel()).status, 200);
    assert.equal((await cp.jobs.get(body.job.jobId))?.status, 'cancelled');
  });

  test('the cluster view: the caller’s own job counts, from the summary the round writes', async () => {
    const before = await callApi(cp, { method: 'GET', resource: '/cluster' });
    assert.equal(before.status, 200);
    assert.equal(before.body.round, 0);
    assert.deepEqual(before.body.hosts, []);
    assert.deepEqual(before.body.jobs, {}, 'no round has counted anything yet');
    assert.equal(before.body.jobsAsOf, undefined);
    const queued = (await cp.jobs.listByStatuses(['queued'])).items.filter(
      (j) => j.tenant === 'alice',
    ).length;
    const round = await invokeRound(cp);
    const { status, body } = await callApi(cp, { method: 'GET', resource: '/cluster' });
    assert.equal(status, 200);
    assert.equal(body.round, round.round);
    assert.equal(body.jobs.queued, queued, 'every queued job of alice, no one else’s');
    assert.equal(body.gpusInUse, 0);
    assert.ok(
      Math.abs(Date.parse(body.jobsAsOf) - Date.now()) < 60_000,
      `as of the round (${body.jobsAsOf})`,
    );
    const stranger = await callApi(cp, { method: 'GET', resource: '/cluster', principal: 'zed' });
    assert.deepEqual(stranger.body.jobs, {}, 'another tenant sees no one else’s job counts');
    assert.equal(stranger.body.jobsAsOf, body.jobsAsOf);
  });
});

describe('code on the host', () => {
  test('GET /config names the bucket for working directories; a job’s code fields are stored and shown', async () => {
    const config = await callApi(cp, { method: 'GET', resource: '/config' });
    assert.equal(config.status, 200);
    assert.match(config.body.bucket, /storagebucket/);
    assert.equal(config.body.workdirPrefix, 'workdirs/');
    const workdir = `s3://${config.body.bucket}/workdirs/${'c'.repeat(64)}.tar.gz`;
    const code = { image: 'ubuntu:24.04', workdir, setup: ['pip install -r requirements.txt'] };
    const { status, body } = await submit(cp, jobDocument({ clientToken: 'own-code', ...code }));
    assert.equal(status, 201);
    assert.deepEqual({ image: body.job.image, workdir: body.job.workdir, setup: body.job.setup }, code);
    const stored = await cp.jobs.get(body.job.jobId);
    assert.deepEqual(stored?.launch, { command: jobDocument().command, ...code });
    const local = await submit(cp, jobDocument({ workdir: './myproj' }));
    assert.equal(local.status, 400);
    assert.match(local.body.message, /workdir: must be s3:\/\/<bucket>\/workdirs\/<sha256>\.tar\.gz/);
  });
});

describe('SQS submissions', () => {
  test('messages on the queue become jobs of the sender; redeliveries and token duplicates create one job', async () => {
    cp.runner.startEventSources(['ingest']);
    const queue = cp.queueUrl('QueuesSubmissions');
    const body = JSON.stringify(jobDocument({ name: 'via-sqs', clientToken: 'sqs-1' }));
    await cp.clients.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    await cp.clients.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    const jobId = await eventually(async () => {
      const { Items } = await cp.clients.dynamodb.send(
        new ScanCommand({ TableName: cp.jobs.tableName, ConsistentRead: true }),
      );
      const found = (Items ?? []).filter((i) => i.clientToken?.S === 'sqs-1');
      return found.length > 0 ? found.map((i) => i.jobId!.S!) : undefined;
    }, 'the SQS job');
    await cp.runner.eventSourcesIdle();
    assert.equal(jobId.length, 1);
    const job = await cp.jobs.get(jobId[0]!);
    assert.ok(job?.tenant, 'the tenant is the SQS sender');

    // The same message delivered twice (same message id, no client token): one job.
    const before = await countJobs();
    const message = {
      MessageId: 'redelivered-1',
      ReceiptHandle: 'r',
      Body: JSON.stringify(jobDocument()),
      Attributes: { SenderId: 'AIDAPRODUCER' },
    };
    const event = sqsEvent([message], 'arn:aws:sqs:us-east-1:000000000000:submissions', 'us-east-1');
    assert.deepEqual(await cp.runner.invoke('ingest', event), { batchItemFailures: [] });
    assert.deepEqual(await cp.runner.invoke('ingest', event), { batchItemFailures: [] });
    assert.equal(await countJobs(), before + 1);
  });

  test('a poison message lands in the DLQ with its reason, and nothing is written', async () => {
    const before = await countJobs();
    await cp.clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: cp.queueUrl('QueuesSubmissions'),
        MessageBody: JSON.stringify(jobDocument({ gpus: 0, gpuTypes: ['Z80'] })),
      }),
    );
    const dead = await eventually(async () => {
      const messages = await drain(cp.queueUrl('QueuesSubmissionsDlq'), 1);
      return messages.length > 0 ? messages : undefined;
    }, 'the rejected message in the DLQ');
    const reason = dead[0]?.MessageAttributes?.[REJECTION_REASON_ATTRIBUTE]?.StringValue ?? '';
    assert.match(reason, /gpus: must be at least 1/);
    assert.match(reason, /gpuTypes\.0: unknown GPU type "Z80"/);
    assert.equal(await countJobs(), before);
  });

  test('a message whose processing keeps failing is redriven to the DLQ after maxReceiveCount', async () => {
    const body = JSON.stringify(jobDocument({ labels: { explode: 'yes' } }));
    await cp.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: cp.queueUrl('QueuesSubmissions'), MessageBody: body }),
    );
    const dead = await eventually(
      async () => {
        const messages = (await drain(cp.queueUrl('QueuesSubmissionsDlq'), 1)).filter((m) => m.Body === body);
        return messages.length > 0 ? messages : undefined;
      },
      'the redriven message',
      20_000,
    );
    assert.equal(
      dead[0]?.MessageAttributes?.[REJECTION_REASON_ATTRIBUTE],
      undefined,
      'redriven by SQS, not rejected',
    );
    assert.ok(
      cp.runner.invocations.filter((i) => i.kind === 'ingest' && !i.ok).length >= 5,
      'retried until maxReceiveCount',
    );
  });
});
