// The handlers with recording fake AWS clients: what each request writes (and, for bad input, that it writes
// nothing), partial batch failures, and environment validation. End-to-end behaviour is in test/integration.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyResult, SQSBatchResponse } from 'aws-lambda';
import { createApiHandler } from '../../functions/api/handler.ts';
import { createFleetEventsHandler } from '../../functions/fleet-events/handler.ts';
import { createIngestHandler } from '../../functions/ingest/handler.ts';
import { createTelemetryHandler } from '../../functions/telemetry/handler.ts';
import type { AwsClients } from '../../lib/aws/clients.ts';
import { ENV } from '../../lib/aws/environment.ts';
import { REJECTION_REASON_ATTRIBUTE } from '../../lib/aws/sqs/dead-letter.ts';
import { apiGatewayEvent, lambdaContext, sqsEvent } from '../../lib/local/runner/index.ts';

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

interface Sent {
  name: string;
  input: Record<string, unknown>;
}

/** Clients that record every command; DynamoDB answers with `respond` (default: nothing found, writes succeed). */
const fakeClients = (respond: (command: Sent) => unknown = () => ({})) => {
  const sent: Sent[] = [];
  const client = (service: string) => ({
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const entry = { name: `${service}:${command.constructor.name}`, input: command.input };
      sent.push(entry);
      const response = respond(entry);
      if (response instanceof Error) throw response;
      return response;
    },
  });
  return {
    sent,
    clients: {
      dynamodb: client('dynamodb'),
      sqs: client('sqs'),
      ec2: client('ec2'),
    } as unknown as AwsClients,
  };
};

const env = {
  [ENV.jobsTable]: 'Jobs',
  [ENV.hostsTable]: 'Hosts',
  [ENV.profilesTable]: 'Profiles',
  [ENV.stateTable]: 'State',
  [ENV.schedulerEventsQueueUrl]: 'https://sqs/events.fifo',
  [ENV.submissionsDlqUrl]: 'https://sqs/submissions-dlq',
  [ENV.telemetryDlqUrl]: 'https://sqs/telemetry-dlq',
  [ENV.clusterName]: 'c',
};
const quiet = {
  logger: new Logger({ logLevel: 'SILENT' }),
  metrics: new Metrics({
    namespace: 'Test',
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  }),
};
const context = () =>
  lambdaContext({ name: 'fn', arn: 'arn:aws:lambda:us-east-1:0:function:fn', memoryMiB: 128 }, 10_000);
const valid = { model: 'resnet50', batchSize: 64, gpus: 2, iterations: 100, command: ['python3'] };

/** `GET /jobs/job-1` as tenant `a`. */
const getJobOne = async (handler: ReturnType<typeof createApiHandler>) =>
  (await handler(
    apiGatewayEvent({
      method: 'GET',
      resource: '/jobs/{id}',
      pathParameters: { id: 'job-1' },
      principal: 'a',
    }),
    context(),
  )) as APIGatewayProxyResult;

describe('api handler', () => {
  test('an invalid spec is a 400 and touches no table and no queue', async () => {
    const { sent, clients } = fakeClients();
    const handler = createApiHandler({ env, clients, ...quiet });
    const response = (await handler(
      apiGatewayEvent({
        method: 'POST',
        resource: '/jobs',
        principal: 'alice',
        body: JSON.stringify({ ...valid, gpus: -1 }),
      }),
      context(),
    )) as APIGatewayProxyResult;
    assert.equal(response.statusCode, 400);
    assert.deepEqual(JSON.parse(response.body).issues, [{ field: 'gpus', rule: 'must be at least 1' }]);
    assert.deepEqual(sent, []);
  });

  test('a valid spec: one conditional put keyed by tenant and token, then one early-round message', async () => {
    const { sent, clients } = fakeClients();
    const handler = createApiHandler({ env, clients, ...quiet });
    const response = (await handler(
      apiGatewayEvent({
        method: 'POST',
        resource: '/jobs',
        principal: 'alice',
        body: JSON.stringify({ ...valid, clientToken: 't1' }),
      }),
      context(),
    )) as APIGatewayProxyResult;
    assert.equal(response.statusCode, 201);
    assert.deepEqual(
      sent.map((s) => s.name),
      ['dynamodb:PutCommand', 'sqs:SendMessageCommand'],
    );
    assert.equal(sent[0]?.input.ConditionExpression, 'attribute_not_exists(#id)');
    assert.equal((sent[0]!.input.Item as { tenant: string }).tenant, 'alice');
    assert.equal(sent[1]?.input.MessageGroupId, 'rounds');
  });

  test('throttling (after the SDK retries) is a 503 with Retry-After, never a 500', async () => {
    const throttle = Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
      name: 'ProvisionedThroughputExceededException',
    });
    const { clients } = fakeClients(() => throttle);
    const handler = createApiHandler({ env, clients, ...quiet });
    const response = await getJobOne(handler);
    assert.equal(response.statusCode, 503);
    assert.equal(response.headers?.['retry-after'], '2');
    assert.match(response.body, /throttled; retry after 2 s/);
  });

  test('unsigned requests are refused; unknown routes are 404; failures are a 500 without details', async () => {
    const { clients } = fakeClients(() => new Error('boom: secret table detail'));
    const handler = createApiHandler({ env, clients, ...quiet });
    const unsigned = apiGatewayEvent({ method: 'GET', resource: '/jobs', principal: 'x' });
    (
      unsigned.requestContext.identity as {
        user: string | null;
        userArn: string | null;
        caller: string | null;
      }
    ).user = null;
    (unsigned.requestContext.identity as { userArn: string | null }).userArn = null;
    (unsigned.requestContext.identity as { caller: string | null }).caller = null;
    assert.equal(((await handler(unsigned, context())) as APIGatewayProxyResult).statusCode, 403);
    assert.equal(
      (
        (await handler(
          apiGatewayEvent({ method: 'PUT', resource: '/jobs', principal: 'a' }),
          context(),
        )) as APIGatewayProxyResult
      ).statusCode,
      404,
    );
    const failed = await getJobOne(handler);
    assert.equal(failed.statusCode, 500);
    assert.doesNotMatch(failed.body, /secret/);
  });

  test('a missing environment variable fails at build time naming it', () => {
    const { clients } = fakeClients();
    assert.throws(
      () => createApiHandler({ env: { ...env, [ENV.jobsTable]: undefined }, clients, ...quiet }),
      /api function environment is invalid:\n {2}TESSERA_JOBS_TABLE: /,
    );
  });
});

describe('ingest handler', () => {
  const record = (id: string, body: string) => ({
    MessageId: id,
    ReceiptHandle: 'r',
    Body: body,
    Attributes: { SenderId: 'AIDAPRODUCER' },
  });

  test('invalid specs go to the DLQ with the reason; valid ones are submitted; transient failures fail their record only', async () => {
    const { sent, clients } = fakeClients((c) =>
      c.name === 'dynamodb:PutCommand' && JSON.stringify(c.input).includes('"flaky"')
        ? new Error('throttled')
        : {},
    );
    const handler = createIngestHandler({ env, clients, ...quiet });
    const event = sqsEvent(
      [
        record('bad', JSON.stringify({ ...valid, gpuTypes: ['Z80'] })),
        record('good', JSON.stringify(valid)),
        record('flaky', JSON.stringify({ ...valid, name: 'flaky' })),
      ],
      'arn:aws:sqs:us-east-1:0:submissions',
      'us-east-1',
    );
    const response = (await handler(event, context())) as SQSBatchResponse;
    assert.deepEqual(response.batchItemFailures, [{ itemIdentifier: 'flaky' }]);
    const dlq = sent.filter((s) => s.input.QueueUrl === env[ENV.submissionsDlqUrl]);
    assert.equal(dlq.length, 1);
    const attributes = dlq[0]?.input.MessageAttributes as Record<string, { StringValue: string }>;
    assert.match(attributes[REJECTION_REASON_ATTRIBUTE]!.StringValue, /gpuTypes\.0: unknown GPU type "Z80"/);
    const puts = sent
      .filter((s) => s.name === 'dynamodb:PutCommand')
      .map((s) => s.input.Item as { tenant: string; clientToken: string });
    assert.deepEqual(
      puts.map((p) => [p.tenant, p.clientToken]),
      [
        ['AIDAPRODUCER', 'good'],
        ['AIDAPRODUCER', 'flaky'],
      ],
    );
  });
});

describe('telemetry handler', () => {
  test('malformed reports go to the DLQ; a heartbeat updates its host only while the host is live', async () => {
    const { sent, clients } = fakeClients((c) =>
      c.name === 'dynamodb:UpdateCommand' ? { Attributes: undefined } : {},
    );
    const handler = createTelemetryHandler({ env, clients, ...quiet });
    const beat = {
      type: 'heartbeat',
      hostId: 'h1',
      at: 1,
      appliedGeneration: 2,
      draining: false,
      evacuating: null,
      gpus: [],
      jobs: [],
    };
    const response = (await handler(
      sqsEvent(
        [
          {
            MessageId: 'a',
            ReceiptHandle: 'r',
            Body: JSON.stringify(beat),
            Attributes: { SenderId: 'AROAX:h1' },
          },
          {
            MessageId: 'b',
            ReceiptHandle: 'r',
            Body: JSON.stringify({ type: 'heartbeat', hostId: 'h1' }),
            Attributes: { SenderId: 'AROAX:h1' },
          },
        ],
        'arn:aws:sqs:us-east-1:0:telemetry',
        'us-east-1',
      ),
      context(),
    )) as SQSBatchResponse;
    assert.deepEqual(response.batchItemFailures, []);
    const update = sent.find((s) => s.name === 'dynamodb:UpdateCommand');
    assert.equal(update?.input.TableName, 'Hosts');
    assert.match(String(update?.input.ConditionExpression), /IN \(/);
    const dlq = sent.find((s) => s.input.QueueUrl === env[ENV.telemetryDlqUrl]);
    assert.match(
      (dlq!.input.MessageAttributes as Record<string, { StringValue: string }>)[REJECTION_REASON_ATTRIBUTE]!
        .StringValue,
      /appliedGeneration/,
    );
  });
});

describe('fleet-events handler', () => {
  test('an event about a host it does not know writes nothing', async () => {
    const { sent, clients } = fakeClients((c) =>
      c.name === 'dynamodb:GetCommand' ? { Item: undefined } : {},
    );
    const handler = createFleetEventsHandler({ env, clients, ...quiet });
    const outcome = await handler(
      {
        version: '0',
        id: '1',
        'detail-type': 'EC2 Spot Instance Interruption Warning',
        source: 'aws.ec2',
        account: '0',
        time: '',
        region: 'us-east-1',
        resources: [],
        detail: { 'instance-id': 'i-1', 'instance-action': 'terminate' },
      },
      context(),
    );
    assert.deepEqual(outcome, { hostId: 'i-1', result: 'ignored', requeued: [] });
    assert.deepEqual(
      sent.map((s) => s.name),
      ['dynamodb:GetCommand'],
    );
  });
});
