import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../../../lib/local/endpoint/dynamodb-local.ts';
import { startLocalEndpoint } from '../../../../lib/local/endpoint/server.ts';
import { clientConfig } from './helpers.ts';

let shared: DynamoDbLocal;
before(async () => {
  shared = await startDynamoDbLocal();
});
after(async () => {
  await shared?.stop();
});

test('endpoints given a running DynamoDB Local share its tables, and leave it running when they stop', async () => {
  const running = { port: shared.port, pid: shared.pid };
  const first = await startLocalEndpoint({ port: 0, dynamodb: { running } });
  const second = await startLocalEndpoint({ port: 0, dynamodb: { running } });
  const one = new DynamoDBClient(clientConfig(first.url));
  const two = new DynamoDBClient(clientConfig(second.url));
  try {
    assert.deepEqual(first.dynamodbLocal, running);
    await one.send(
      new CreateTableCommand({
        TableName: 'SharedHosts',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await one.send(
      new PutItemCommand({ TableName: 'SharedHosts', Item: { id: { S: 'h1' }, n: { N: '7' } } }),
    );
    await first.stop();
    assert.ok(shared.isRunning(), 'the first endpoint stopping does not stop the shared DynamoDB Local');
    const item = await two.send(new GetItemCommand({ TableName: 'SharedHosts', Key: { id: { S: 'h1' } } }));
    assert.equal(item.Item?.n?.N, '7');
    const health = (await (await fetch(`${second.url}/_localstack/health`)).json()) as {
      services: Record<string, string>;
    };
    assert.equal(health.services.dynamodb, 'running');
  } finally {
    one.destroy();
    two.destroy();
    await first.stop();
    await second.stop();
  }
});

test('a running DynamoDB Local keeps no data in a data directory: both together are refused', async () => {
  await assert.rejects(
    startLocalEndpoint({
      port: 0,
      dataDir: '/tmp/unused',
      dynamodb: { running: { port: shared.port, pid: shared.pid } },
    }),
    /running DynamoDB Local keeps no data in dataDir/,
  );
});
