import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateLaunchTemplateCommand,
  CreateTagsCommand,
  DescribeInstancesCommand,
  DescribeInstanceTopologyCommand,
  DescribeLaunchTemplatesCommand,
  EC2Client,
  RunInstancesCommand,
  TerminateInstancesCommand,
} from '@aws-sdk/client-ec2';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { EventBridgeJsonClient } from '../../../../lib/local/endpoint/events/client.ts';
import type { EventDelivery } from '../../../../lib/local/endpoint/events/types.ts';
import { type LocalEndpoint, startLocalEndpoint } from '../../../../lib/local/endpoint/server.ts';
import { signRequest } from '../../../../lib/local/endpoint/sigv4.ts';
import { clientConfig, credentials, eventually, processesInGroup } from './helpers.ts';

async function rejectsWithName(promise: Promise<unknown>, name: string): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    assert.equal(
      (error as Error).name,
      name,
      `expected ${name}, got ${(error as Error).name}: ${(error as Error).message}`,
    );
    return error as Error;
  }
  assert.fail(`expected ${name} to be thrown`);
}

/** A hand-made request, optionally SigV4-signed for `service`, to test routing without an SDK. */
async function rawRequest(
  endpoint: LocalEndpoint,
  init: { service?: string; headers?: Record<string, string>; body: string },
): Promise<{ status: number; contentType: string; text: string }> {
  const url = new URL(endpoint.url);
  let headers = init.headers ?? {};
  if (init.service) {
    const signed = signRequest(
      { method: 'POST', url, headers, body: init.body },
      { credentials, region: 'us-east-1', service: init.service, now: new Date() },
    );
    const { host: _host, ...rest } = signed;
    headers = rest;
  }
  const response = await fetch(url, { method: 'POST', headers, body: init.body });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

describe('local AWS endpoint', () => {
  let endpoint: LocalEndpoint;
  let dynamodb: DynamoDBClient;
  let sqs: SQSClient;
  let ec2: EC2Client;
  let events: EventBridgeJsonClient;
  const deliveries: EventDelivery[] = [];

  before(async () => {
    endpoint = await startLocalEndpoint({ port: 0, ec2: { pendingMs: 40, shuttingDownMs: 40 } });
    dynamodb = new DynamoDBClient(clientConfig(endpoint.url));
    sqs = new SQSClient(clientConfig(endpoint.url));
    ec2 = new EC2Client(clientConfig(endpoint.url));
    events = new EventBridgeJsonClient(clientConfig(endpoint.url));
    endpoint.events.subscribe((delivery) => {
      deliveries.push(delivery);
    });
  });

  after(async () => {
    for (const client of [dynamodb, sqs, ec2]) client?.destroy();
    await endpoint?.stop();
  });

  test('health reports every service running, LocalStack style', async () => {
    const response = await fetch(`${endpoint.url}/_localstack/health`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { services: Record<string, string> };
    assert.deepEqual(body.services, {
      dynamodb: 'running',
      sqs: 'running',
      ec2: 'running',
      events: 'running',
      s3: 'running',
    });
  });

  describe('routing', () => {
    test('X-Amz-Target alone reaches DynamoDB Local, SQS and EventBridge', async () => {
      const dynamo = await rawRequest(endpoint, {
        headers: {
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          'content-type': 'application/x-amz-json-1.0',
        },
        body: '{}',
      });
      // Only the real DynamoDB Local answers with its own namespaced error for a missing signature.
      assert.match(dynamo.text, /com\.amazonaws\.dynamodb\.v20120810#MissingAuthenticationToken/);

      const queues = await rawRequest(endpoint, {
        headers: { 'x-amz-target': 'AmazonSQS.ListQueues', 'content-type': 'application/x-amz-json-1.0' },
        body: '{}',
      });
      assert.equal(queues.status, 200);

      const rules = await rawRequest(endpoint, {
        headers: { 'x-amz-target': 'AWSEvents.ListRules', 'content-type': 'application/x-amz-json-1.1' },
        body: '{}',
      });
      assert.equal(rules.status, 200);
      assert.deepEqual(JSON.parse(rules.text), { Rules: [] });
    });

    test('the SigV4 credential scope decides, even against X-Amz-Target', async () => {
      const described = await rawRequest(endpoint, {
        service: 'ec2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'Action=DescribeInstances&Version=2016-11-15',
      });
      assert.equal(described.status, 200);
      assert.match(described.text, /<DescribeInstancesResponse/);

      // Signed for sqs but targeted at EventBridge: SQS (fauxqs) answers, rejecting the action.
      const crossed = await rawRequest(endpoint, {
        service: 'sqs',
        headers: { 'x-amz-target': 'AWSEvents.ListRules', 'content-type': 'application/x-amz-json-1.0' },
        body: '{}',
      });
      assert.equal(crossed.status, 400);
      assert.match(crossed.text, /com\.amazonaws\.sqs#InvalidAction/);
    });

    test('an unknown service gets a 400 naming it, as XML or JSON', async () => {
      const lambda = await rawRequest(endpoint, { service: 'lambda', body: '' });
      assert.equal(lambda.status, 400);
      assert.match(lambda.contentType, /xml/);
      assert.match(lambda.text, /<Code>UnsupportedService<\/Code>/);
      assert.match(lambda.text, /service 'lambda'/);

      const stepFunctions = await rawRequest(endpoint, {
        headers: {
          'x-amz-target': 'AWSStepFunctions.StartExecution',
          'content-type': 'application/x-amz-json-1.0',
        },
        body: '{}',
      });
      assert.equal(stepFunctions.status, 400);
      const error = JSON.parse(stepFunctions.text) as { __type: string; message: string };
      assert.equal(error.__type, 'UnsupportedService');
      assert.match(error.message, /AWSStepFunctions/);

      const anonymous = await rawRequest(endpoint, { body: 'Action=DescribeInstances' });
      assert.equal(anonymous.status, 400);
      assert.match(anonymous.text, /MissingServiceIdentification/);
    });
  });

  describe('DynamoDB (DynamoDB Local)', () => {
    test('CreateTable with a GSI, conditional put, transactions, GSI query', async () => {
      await dynamodb.send(
        new CreateTableCommand({
          TableName: 'Jobs',
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [
            { AttributeName: 'jobId', AttributeType: 'S' },
            { AttributeName: 'status', AttributeType: 'S' },
          ],
          KeySchema: [{ AttributeName: 'jobId', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'byStatus',
              KeySchema: [{ AttributeName: 'status', KeyType: 'HASH' }],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      );
      const putNew = (jobId: string, status: string) =>
        dynamodb.send(
          new PutItemCommand({
            TableName: 'Jobs',
            Item: { jobId: { S: jobId }, status: { S: status } },
            ConditionExpression: 'attribute_not_exists(jobId)',
          }),
        );
      await putNew('j1', 'queued');
      await rejectsWithName(putNew('j1', 'running'), 'ConditionalCheckFailedException');

      await dynamodb.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: 'Jobs', Item: { jobId: { S: 'j2' }, status: { S: 'queued' } } } },
            {
              Update: {
                TableName: 'Jobs',
                Key: { jobId: { S: 'j1' } },
                UpdateExpression: 'SET #s = :running',
                ConditionExpression: '#s = :queued',
                ExpressionAttributeNames: { '#s': 'status' },
                ExpressionAttributeValues: { ':running': { S: 'running' }, ':queued': { S: 'queued' } },
              },
            },
          ],
        }),
      );
      // The same transaction again fails as a whole: j1 is no longer queued.
      await rejectsWithName(
        dynamodb.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              { Put: { TableName: 'Jobs', Item: { jobId: { S: 'j3' }, status: { S: 'queued' } } } },
              {
                ConditionCheck: {
                  TableName: 'Jobs',
                  Key: { jobId: { S: 'j1' } },
                  ConditionExpression: '#s = :queued',
                  ExpressionAttributeNames: { '#s': 'status' },
                  ExpressionAttributeValues: { ':queued': { S: 'queued' } },
                },
              },
            ],
          }),
        ),
        'TransactionCanceledException',
      );
      const queued = await dynamodb.send(
        new QueryCommand({
          TableName: 'Jobs',
          IndexName: 'byStatus',
          KeyConditionExpression: '#s = :queued',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':queued': { S: 'queued' } },
        }),
      );
      assert.deepEqual(
        queued.Items?.map((item) => item.jobId?.S),
        ['j2'],
      );
    });
  });

  describe('SQS (fauxqs)', () => {
    test('FIFO queue deduplicates and returns queue URLs on the endpoint itself', async () => {
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: 'scheduler-events.fifo', Attributes: { FifoQueue: 'true' } }),
      );
      assert.equal(QueueUrl, `${endpoint.url}/000000000000/scheduler-events.fifo`);
      for (const body of ['arrival j1', 'arrival j1 (retry)']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl,
            MessageBody: body,
            MessageGroupId: 'rounds',
            MessageDeduplicationId: 'arrival-j1',
          }),
        );
      }
      await sqs.send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: 'completion j0',
          MessageGroupId: 'rounds',
          MessageDeduplicationId: 'c-j0',
        }),
      );
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
      assert.deepEqual(
        first.Messages?.map((m) => m.Body),
        ['arrival j1'],
      );
      // The group stays locked while its head message is in flight.
      const locked = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
      assert.equal(locked.Messages?.length ?? 0, 0);
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl, ReceiptHandle: first.Messages?.[0]?.ReceiptHandle }),
      );
      const second = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
      assert.deepEqual(
        second.Messages?.map((m) => m.Body),
        ['completion j0'],
      );
    });

    test('a message received maxReceiveCount times moves to the dead-letter queue', async () => {
      const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'telemetry-dlq' }));
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
      );
      const main = await sqs.send(
        new CreateQueueCommand({
          QueueName: 'telemetry',
          Attributes: {
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: 2 }),
          },
        }),
      );
      await sqs.send(new SendMessageCommand({ QueueUrl: main.QueueUrl, MessageBody: 'poison' }));
      for (let attempt = 1; attempt <= 2; attempt++) {
        const got = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: main.QueueUrl, VisibilityTimeout: 0 }),
        );
        assert.equal(got.Messages?.[0]?.Body, 'poison', `receive #${attempt}`);
      }
      const third = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: main.QueueUrl, VisibilityTimeout: 0 }),
      );
      assert.equal(third.Messages?.length ?? 0, 0);
      const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl, WaitTimeSeconds: 1 }));
      assert.equal(dead.Messages?.[0]?.Body, 'poison');
    });

    test('a queue URL spelled with another host still finds the queue', async () => {
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'submissions' }));
      const otherSpelling = QueueUrl!.replace('127.0.0.1', 'localhost');
      await sqs.send(new SendMessageCommand({ QueueUrl: otherSpelling, MessageBody: 'job' }));
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
      assert.equal(got.Messages?.[0]?.Body, 'job');
    });
  });

  describe('EC2 shim', () => {
    test('launch from a template as Spot, reach running, topology, terminate', async () => {
      await events.putRule({
        Name: 'ec2-state',
        EventPattern: JSON.stringify({
          source: ['aws.ec2'],
          'detail-type': ['EC2 Instance State-change Notification'],
        }),
      });
      await events.putTargets({
        Rule: 'ec2-state',
        Targets: [{ Id: 'fleet-events', Arn: 'arn:aws:lambda:us-east-1:000000000000:function:fleet-events' }],
      });

      const created = await ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: 'tessera-p4d',
          LaunchTemplateData: {
            ImageId: 'ami-0123456789abcdef0',
            InstanceType: 'p4d.24xlarge',
            TagSpecifications: [
              { ResourceType: 'instance', Tags: [{ Key: 'tessera:cluster', Value: 'local' }] },
            ],
          },
        }),
      );
      const templateId = created.LaunchTemplate?.LaunchTemplateId;
      assert.match(templateId ?? '', /^lt-[0-9a-f]{17}$/);
      await rejectsWithName(
        ec2.send(
          new CreateLaunchTemplateCommand({
            LaunchTemplateName: 'tessera-p4d',
            LaunchTemplateData: { ImageId: 'ami-1' },
          }),
        ),
        'InvalidLaunchTemplateName.AlreadyExistsException',
      );
      const listed = await ec2.send(
        new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: ['tessera-p4d'] }),
      );
      assert.equal(listed.LaunchTemplates?.[0]?.LaunchTemplateId, templateId);

      const run = await ec2.send(
        new RunInstancesCommand({
          MinCount: 2,
          MaxCount: 2,
          LaunchTemplate: { LaunchTemplateName: 'tessera-p4d', Version: '$Latest' },
          InstanceMarketOptions: { MarketType: 'spot' },
          TagSpecifications: [
            { ResourceType: 'instance', Tags: [{ Key: 'tessera:pool', Value: 'spot-a100' }] },
          ],
        }),
      );
      const launched = run.Instances ?? [];
      assert.equal(launched.length, 2);
      for (const instance of launched) {
        assert.equal(instance.State?.Name, 'pending');
        assert.equal(instance.InstanceType, 'p4d.24xlarge');
        assert.equal(instance.InstanceLifecycle, 'spot');
        const tags = Object.fromEntries((instance.Tags ?? []).map((t) => [t.Key, t.Value]));
        assert.equal(tags['tessera:cluster'], 'local');
        assert.equal(tags['tessera:pool'], 'spot-a100');
        assert.equal(tags['aws:ec2launchtemplate:id'], templateId);
      }
      const ids = launched.map((i) => i.InstanceId!);

      const running = await eventually(
        async () => {
          const page = await ec2.send(
            new DescribeInstancesCommand({
              Filters: [
                { Name: 'tag:tessera:pool', Values: ['spot-*'] },
                { Name: 'instance-state-name', Values: ['running'] },
              ],
            }),
          );
          const found = page.Reservations?.flatMap((r) => r.Instances ?? []) ?? [];
          return found.length === 2 ? found : undefined;
        },
        3000,
        'both instances running',
      );
      assert.deepEqual(running.map((i) => i.InstanceId).sort(), [...ids].sort());

      const topology = await ec2.send(new DescribeInstanceTopologyCommand({ InstanceIds: ids }));
      assert.equal(topology.Instances?.length, 2);
      const [first, second] = topology.Instances!;
      assert.equal(first?.NetworkNodes?.length, 3);
      assert.deepEqual(first?.NetworkNodes, second?.NetworkNodes, 'consecutive launches share a bottom node');

      await ec2.send(
        new CreateTagsCommand({ Resources: [ids[0]!], Tags: [{ Key: 'tessera:host', Value: 'h0' }] }),
      );
      const tagged = await ec2.send(
        new DescribeInstancesCommand({ Filters: [{ Name: 'tag:tessera:host', Values: ['h0'] }] }),
      );
      assert.deepEqual(
        tagged.Reservations?.flatMap((r) => r.Instances ?? []).map((i) => i.InstanceId),
        [ids[0]],
      );

      const terminated = await ec2.send(new TerminateInstancesCommand({ InstanceIds: [ids[0]!] }));
      assert.equal(terminated.TerminatingInstances?.[0]?.PreviousState?.Name, 'running');
      assert.equal(terminated.TerminatingInstances?.[0]?.CurrentState?.Name, 'shutting-down');
      await eventually(
        async () => {
          const page = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [ids[0]!] }));
          return page.Reservations?.[0]?.Instances?.[0]?.State?.Name === 'terminated' ? true : undefined;
        },
        3000,
        'instance terminated',
      );

      // State changes reached the EventBridge rule's target in order.
      const states = await eventually(
        () => {
          const seen = deliveries
            .filter(
              (d) =>
                d.rule.name === 'ec2-state' &&
                (d.event.detail as { 'instance-id': string })['instance-id'] === ids[0],
            )
            .map((d) => (d.event.detail as { state: string }).state);
          return seen.length === 4 ? seen : undefined;
        },
        3000,
        'four state-change events',
      );
      assert.deepEqual(states, ['pending', 'running', 'shutting-down', 'terminated']);
    });

    test('errors carry EC2 codes as SDK exception names', async () => {
      await rejectsWithName(
        ec2.send(new DescribeInstancesCommand({ InstanceIds: ['i-0000000000000ffff'] })),
        'InvalidInstanceID.NotFound',
      );
      await rejectsWithName(
        ec2.send(new TerminateInstancesCommand({ InstanceIds: ['not-an-instance'] })),
        'InvalidInstanceID.Malformed',
      );
      await rejectsWithName(
        ec2.send(
          new RunInstancesCommand({
            MinCount: 1,
            MaxCount: 1,
            LaunchTemplate: { LaunchTemplateName: 'nope' },
          }),
        ),
        'InvalidLaunchTemplateName.NotFoundException',
      );
      await rejectsWithName(
        ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: 'no-such-filter', Values: ['x'] }] })),
        'InvalidParameterValue',
      );
      await rejectsWithName(
        ec2.send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-1', DryRun: true })),
        'DryRunOperation',
      );
    });
  });

  describe('EventBridge shim', () => {
    test('PutRule/PutTargets/PutEvents deliver matching events to subscribers with the target input', async () => {
      const { RuleArn } = await events.putRule({
        Name: 'job-finished',
        EventPattern: JSON.stringify({
          source: ['tessera.agent'],
          detail: { status: ['finished', 'failed'] },
        }),
        Description: 'job completions trigger an early round',
      });
      assert.equal(RuleArn, 'arn:aws:events:us-east-1:000000000000:rule/job-finished');
      await events.putTargets({
        Rule: 'job-finished',
        Targets: [
          { Id: 'round', Arn: 'arn:aws:lambda:us-east-1:000000000000:function:round', InputPath: '$.detail' },
        ],
      });
      const put = await events.putEvents({
        Entries: [
          {
            Source: 'tessera.agent',
            DetailType: 'Job',
            Detail: JSON.stringify({ jobId: 'j1', status: 'finished' }),
          },
          {
            Source: 'tessera.agent',
            DetailType: 'Job',
            Detail: JSON.stringify({ jobId: 'j2', status: 'running' }),
          },
          { Source: 'tessera.agent', DetailType: 'Job', Detail: 'not json' },
        ],
      });
      assert.equal(put.FailedEntryCount, 1);
      assert.equal(put.Entries[2]?.ErrorCode, 'MalformedDetail');
      const delivered = await eventually(
        () => {
          const mine = deliveries.filter((d) => d.rule.name === 'job-finished');
          return mine.length > 0 ? mine : undefined;
        },
        2000,
        'job-finished delivery',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(
        deliveries.filter((d) => d.rule.name === 'job-finished').length,
        1,
        'only the matching event',
      );
      assert.deepEqual(delivered[0]?.input, { jobId: 'j1', status: 'finished' });
      assert.equal(delivered[0]?.target.Id, 'round');
      assert.equal(delivered[0]?.event.id, put.Entries[0]?.EventId);

      const described = await events.describeRule({ Name: 'job-finished' });
      assert.equal(described.Description, 'job completions trigger an early round');
      const listed = await events.listRules({ NamePrefix: 'job-' });
      assert.deepEqual(
        listed.Rules.map((r) => r.Name),
        ['job-finished'],
      );
      await rejectsWithName(events.deleteRule({ Name: 'job-finished' }), 'ValidationException');
      await events.removeTargets({ Rule: 'job-finished', Ids: ['round'] });
      await events.deleteRule({ Name: 'job-finished' });
      await rejectsWithName(events.describeRule({ Name: 'job-finished' }), 'ResourceNotFoundException');
    });

    test('schedule rules are stored and fired by whoever drives them', async () => {
      await rejectsWithName(
        events.putRule({ Name: 'bad', ScheduleExpression: 'rate(1 minutes)' }),
        'ValidationException',
      );
      await rejectsWithName(
        events.putRule({ Name: 'bad', EventPattern: '{"source": "not-a-list"}' }),
        'InvalidEventPatternException',
      );
      await events.putRule({ Name: 'round-tick', ScheduleExpression: 'rate(1 minute)' });
      await events.putTargets({
        Rule: 'round-tick',
        Targets: [
          {
            Id: 'round',
            Arn: 'arn:aws:lambda:us-east-1:000000000000:function:round',
            Input: '{"trigger":"schedule"}',
          },
        ],
      });
      const scheduled = endpoint.events.scheduledRules().find((s) => s.rule.Name === 'round-tick');
      assert.equal(scheduled?.schedule.kind, 'rate');
      endpoint.events.fireSchedule('round-tick', Date.parse('2030-01-01T00:01:00Z'));
      const tick = await eventually(
        () => deliveries.find((d) => d.rule.name === 'round-tick'),
        2000,
        'schedule tick',
      );
      assert.equal(tick.event['detail-type'], 'Scheduled Event');
      assert.equal(tick.event.time, '2030-01-01T00:01:00Z');
      assert.deepEqual(tick.input, { trigger: 'schedule' });
    });
  });

  test('stop() ends DynamoDB Local: no java left in its process group, port closed', async () => {
    const group = endpoint.dynamodbLocal.pid;
    const before = processesInGroup(group);
    assert.ok(
      before.some((p) => p.command === 'java'),
      `java should run in group ${group} before stop: ${JSON.stringify(before)}`,
    );
    await endpoint.stop();
    assert.deepEqual(processesInGroup(group), []);
    await assert.rejects(fetch(`${endpoint.url}/_localstack/health`));
  });
});
