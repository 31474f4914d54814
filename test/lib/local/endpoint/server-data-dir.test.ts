import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand, EC2Client, RunInstancesCommand } from '@aws-sdk/client-ec2';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type LocalEndpoint, startLocalEndpoint } from '../../../../lib/local/endpoint/server.ts';
import { clientConfig } from './helpers.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'tessera-endpoint-'));
const running: LocalEndpoint[] = [];

after(async () => {
  await Promise.all(running.map((e) => e.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function session<T>(
  work: (
    endpoint: LocalEndpoint,
    clients: { dynamodb: DynamoDBClient; sqs: SQSClient; ec2: EC2Client },
  ) => Promise<T>,
): Promise<T> {
  const endpoint = await startLocalEndpoint({ port: 0, dataDir, ec2: { pendingMs: 10 } });
  running.push(endpoint);
  const clients = {
    dynamodb: new DynamoDBClient(clientConfig(endpoint.url)),
    sqs: new SQSClient(clientConfig(endpoint.url)),
    ec2: new EC2Client(clientConfig(endpoint.url)),
  };
  try {
    return await work(endpoint, clients);
  } finally {
    for (const client of Object.values(clients)) client.destroy();
    await endpoint.stop();
  }
}

test('with dataDir, tables, items, queues, rules and instances survive a restart', async () => {
  const instanceId = await session(async (endpoint, { dynamodb, sqs, ec2 }) => {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: 'Hosts',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await dynamodb.send(
      new PutItemCommand({ TableName: 'Hosts', Item: { id: { S: 'h1' }, generation: { N: '3' } } }),
    );
    await sqs.send(
      new CreateQueueCommand({ QueueName: 'telemetry', Attributes: { VisibilityTimeout: '45' } }),
    );
    endpoint.events.putRule({ Name: 'tick', ScheduleExpression: 'rate(1 minute)' });
    const run = await ec2.send(
      new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-1', InstanceType: 'g5.xlarge' }),
    );
    return run.Instances![0]!.InstanceId!;
  });

  await session(async (endpoint, { dynamodb, sqs, ec2 }) => {
    assert.equal(
      (await dynamodb.send(new DescribeTableCommand({ TableName: 'Hosts' }))).Table?.TableName,
      'Hosts',
    );
    const item = await dynamodb.send(new GetItemCommand({ TableName: 'Hosts', Key: { id: { S: 'h1' } } }));
    assert.equal(item.Item?.generation?.N, '3');
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'telemetry' }));
    assert.equal(QueueUrl, `${endpoint.url}/000000000000/telemetry`, 'queue URLs follow the new port');
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['VisibilityTimeout'] }),
    );
    assert.equal(Attributes?.VisibilityTimeout, '45');
    assert.deepEqual(
      endpoint.events.listAllRules().map((r) => r.Name),
      ['tick'],
    );
    const described = await ec2.send(new DescribeInstancesCommand({ InstanceIds: [instanceId] }));
    assert.equal(described.Reservations?.[0]?.Instances?.[0]?.InstanceType, 'g5.xlarge');
    // The id counter continues instead of reusing ids.
    const next = await ec2.send(new RunInstancesCommand({ MinCount: 1, MaxCount: 1, ImageId: 'ami-1' }));
    assert.notEqual(next.Instances?.[0]?.InstanceId, instanceId);
  });
});
