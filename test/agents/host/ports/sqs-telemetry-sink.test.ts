import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsTelemetrySink } from '../../../../agents/host/ports/sqs-telemetry-sink.ts';
import { TelemetryDeliveryError } from '../../../../agents/host/ports/telemetry-sink.ts';
import type { TelemetryMessage } from '../../../../lib/protocol/telemetry.ts';
import { bodyText, fakeHttpHandler } from './fake-http.ts';

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/123456789012/tessera-telemetry';

function finished(index: number): TelemetryMessage {
  return { type: 'finished', hostId: 'h', at: index, jobId: `job-${index}`, jobGeneration: 1, step: 10 };
}

type Entry = { Id: string; MessageBody: string };
/** A fake SQS client: records each batch, fails the entries `fail` picks. */
function fakeSqs(fail: (entry: Entry, call: number) => { senderFault: boolean } | null = () => null) {
  const calls: Entry[][] = [];
  return {
    calls,
    client: {
      async send(command: SendMessageBatchCommand) {
        assert.ok(command instanceof SendMessageBatchCommand);
        assert.equal(command.input.QueueUrl, QUEUE);
        const entries = command.input.Entries as Entry[];
        calls.push(entries);
        const failed = entries.flatMap((entry) => {
          const failure = fail(entry, calls.length);
          return failure
            ? [{ Id: entry.Id, SenderFault: failure.senderFault, Code: 'InternalError', Message: 'x' }]
            : [];
        });
        return { Successful: [], Failed: failed };
      },
    } as unknown as Pick<SQSClient, 'send'>,
  };
}

const noSleep = async () => {};

describe('SqsTelemetrySink', () => {
  test('sends batches of at most 10 entries, each message as its JSON body', async () => {
    const sqs = fakeSqs();
    const messages = Array.from({ length: 23 }, (_, index) => finished(index));
    await new SqsTelemetrySink(sqs.client, { queueUrl: QUEUE, sleep: noSleep }).send(messages);
    assert.deepEqual(
      sqs.calls.map((batch) => batch.length),
      [10, 10, 3],
    );
    const bodies = sqs.calls.flat().map((entry) => JSON.parse(entry.MessageBody));
    assert.deepEqual(bodies, messages);
    assert.ok(sqs.calls.every((batch) => new Set(batch.map((entry) => entry.Id)).size === batch.length));
  });

  test('retries only the failed entries, with back-off', async () => {
    const sleeps: number[] = [];
    const sqs = fakeSqs((entry, call) =>
      call === 1 && (entry.Id === '1' || entry.Id === '3') ? { senderFault: false } : null,
    );
    await new SqsTelemetrySink(sqs.client, {
      queueUrl: QUEUE,
      retryBaseMs: 50,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    }).send([finished(0), finished(1), finished(2), finished(3)]);
    assert.deepEqual(
      sqs.calls.map((batch) => batch.map((entry) => JSON.parse(entry.MessageBody).at)),
      [
        [0, 1, 2, 3],
        [1, 3],
      ],
    );
    assert.deepEqual(sleeps, [50]);
  });

  test('gives up after maxAttempts and names the undelivered messages; sender faults are not retried', async () => {
    const sqs = fakeSqs((entry) =>
      entry.Id === '0' ? { senderFault: false } : entry.Id === '1' ? { senderFault: true } : null,
    );
    const sink = new SqsTelemetrySink(sqs.client, { queueUrl: QUEUE, maxAttempts: 3, sleep: noSleep });
    await assert.rejects(sink.send([finished(0), finished(1), finished(2)]), (error: Error) => {
      assert.ok(error instanceof TelemetryDeliveryError);
      assert.deepEqual(
        error.undelivered.map((message) => message.at),
        [0],
      );
      assert.match(error.message, /2 of 3 messages not delivered, 1 rejected for good/);
      return true;
    });
    assert.deepEqual(
      sqs.calls.map((batch) => batch.length),
      [3, 1, 1],
    );
  });

  test('a failing call (network, throttling) retries the whole batch', async () => {
    let calls = 0;
    const client = {
      async send() {
        calls++;
        if (calls === 1) throw new Error('socket hang up');
        return { Successful: [], Failed: [] };
      },
    } as unknown as Pick<SQSClient, 'send'>;
    await new SqsTelemetrySink(client, { queueUrl: QUEUE, sleep: noSleep }).send([finished(0)]);
    assert.equal(calls, 2);
  });

  test('builds a real SendMessageBatch request through the SDK', async () => {
    const http = fakeHttpHandler((request) => {
      const body = JSON.parse(bodyText(request)) as { Entries: Entry[] };
      return {
        statusCode: 200,
        headers: { 'content-type': 'application/x-amz-json-1.0' },
        body: JSON.stringify({
          Successful: body.Entries.map((entry) => ({
            Id: entry.Id,
            MessageId: `m-${entry.Id}`,
            MD5OfMessageBody: createHash('md5').update(entry.MessageBody).digest('hex'),
          })),
          Failed: [],
        }),
      };
    });
    const client = new SQSClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:4566',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: http.handler,
    });
    await new SqsTelemetrySink(client, { queueUrl: QUEUE }).send([finished(1), finished(2)]);
    assert.equal(http.requests.length, 1);
    const request = http.requests[0]!;
    assert.equal(
      request.hostname,
      '127.0.0.1',
      'AWS_ENDPOINT_URL-style endpoint wins over the queue URL host',
    );
    assert.equal(request.headers['x-amz-target'], 'AmazonSQS.SendMessageBatch');
    const body = JSON.parse(bodyText(request));
    assert.equal(body.QueueUrl, QUEUE);
    assert.deepEqual(
      body.Entries.map((entry: Entry) => JSON.parse(entry.MessageBody).jobId),
      ['job-1', 'job-2'],
    );
  });
});
