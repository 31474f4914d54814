import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDesiredStateSource } from '../../../../agents/host/ports/dynamodb-desired-state-source.ts';
import { bodyText, fakeHttpHandler } from './fake-http.ts';

function client(item: Record<string, unknown> | null) {
  const http = fakeHttpHandler(() => ({
    statusCode: 200,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify(item ? { Item: item } : {}),
  }));
  const dynamo = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:8000',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    requestHandler: http.handler,
  });
  return { http, documents: DynamoDBDocumentClient.from(dynamo) };
}

test('reads the desired attribute of the host item with a consistent GetItem', async () => {
  const { http, documents } = client({
    desired: {
      M: {
        hostId: { S: 'i-0abc' },
        generation: { N: '12' },
        workers: { L: [{ M: { jobId: { S: 'job-1' }, gpuIndices: { L: [{ N: '0' }, { N: '1' }] } } }] },
      },
    },
  });
  const source = new DynamoDbDesiredStateSource(documents, { tableName: 'TesseraHosts', hostId: 'i-0abc' });
  assert.deepEqual(await source.read(), {
    hostId: 'i-0abc',
    generation: 12,
    workers: [{ jobId: 'job-1', gpuIndices: [0, 1] }],
  });
  const request = http.requests[0]!;
  assert.equal(request.headers['x-amz-target'], 'DynamoDB_20120810.GetItem');
  assert.deepEqual(JSON.parse(bodyText(request)), {
    TableName: 'TesseraHosts',
    Key: { hostId: { S: 'i-0abc' } },
    ConsistentRead: true,
    ProjectionExpression: '#desired',
    ExpressionAttributeNames: { '#desired': 'desired' },
  });
});

test('no item, or an item without desired state, reads as null', async () => {
  assert.equal(
    await new DynamoDbDesiredStateSource(client(null).documents, { tableName: 'T', hostId: 'h' }).read(),
    null,
  );
  assert.equal(
    await new DynamoDbDesiredStateSource(client({ hostId: { S: 'h' } }).documents, {
      tableName: 'T',
      hostId: 'h',
    }).read(),
    null,
  );
});

test('key and attribute names are configurable', async () => {
  const { http, documents } = client({ plan: { M: { generation: { N: '1' } } } });
  const source = new DynamoDbDesiredStateSource(documents, {
    tableName: 'Hosts',
    hostId: 'h-1',
    keyAttribute: 'pk',
    desiredAttribute: 'plan',
  });
  assert.deepEqual(await source.read(), { generation: 1 });
  const body = JSON.parse(bodyText(http.requests[0]!));
  assert.deepEqual([body.Key, body.ExpressionAttributeNames], [{ pk: { S: 'h-1' } }, { '#desired': 'plan' }]);
});
