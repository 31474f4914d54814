// The local SQS carries each message's sender identity like real SQS: a local host credential's messages say
// `AROALOCALHOST:<hostId>`, nobody can forge the stamp by setting the reserved attribute themselves.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import {
  type LocalEndpoint,
  localHostCredentials,
  startLocalEndpoint,
} from '../../../../lib/local/endpoint/index.ts';
import { SENDER_ATTRIBUTE } from '../../../../lib/local/endpoint/sqs-sender.ts';
import { sharedDynamoDbLocal } from '../../../support/shared-dynamodb-local.ts';
import { clientConfig } from './helpers.ts';

let endpoint: LocalEndpoint;
let queueUrl = '';
const sqs = (credentials?: { accessKeyId: string; secretAccessKey: string }) =>
  new SQSClient({ ...clientConfig(endpoint.url), ...(credentials ? { credentials } : {}) });

before(async () => {
  endpoint = await startLocalEndpoint({ port: 0, ...sharedDynamoDbLocal() });
  ({ QueueUrl: queueUrl = '' } = await sqs().send(new CreateQueueCommand({ QueueName: 'senders' })));
});
after(async () => {
  await endpoint?.stop();
});

const receiveAll = async () => {
  const { Messages = [] } = await sqs().send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ['SenderId'],
      MessageAttributeNames: ['All'],
    }),
  );
  return Messages;
};

describe('local SQS sender identity', () => {
  test('each message names the credential that sent it; a forged stamp is overwritten', async () => {
    await sqs(localHostCredentials('i-0aaa')).send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'a' }),
    );
    await sqs(localHostCredentials('i-0bbb')).send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          {
            Id: '1',
            MessageBody: 'b',
            MessageAttributes: {
              [SENDER_ATTRIBUTE]: { DataType: 'String', StringValue: 'AROALOCALHOST:i-0aaa' },
              kept: { DataType: 'String', StringValue: 'yes' },
            },
          },
        ],
      }),
    );
    await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'c' }));
    const messages = [];
    while (messages.length < 3) messages.push(...(await receiveAll()));
    const bySender = Object.fromEntries(messages.map((m) => [m.Body, m.Attributes?.SenderId]));
    assert.deepEqual(bySender, { a: 'AROALOCALHOST:i-0aaa', b: 'AROALOCALHOST:i-0bbb', c: 'test' });
    const b = messages.find((m) => m.Body === 'b')!;
    assert.deepEqual(
      Object.keys(b.MessageAttributes ?? {}),
      ['kept'],
      'the reserved attribute is not delivered',
    );
  });
});
