import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  LeaseLostError,
  MAX_TRANSACTION_BYTES,
  MAX_WRITES_PER_TRANSACTION,
  transactItemBytes,
  transactionBatches,
  writeFenced,
} from '../../../../lib/aws/dynamo/fenced-writes.ts';

const fence = { ConditionCheck: { TableName: 'state', Key: { key: 'lease' }, ConditionExpression: 'x' } };
const write = (label: string) => ({
  label,
  item: { Update: { TableName: 't', Key: { id: label }, UpdateExpression: 'SET a = :a' } },
});

const cancelled = (codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

/** A client whose transactions fail per a script; records every transaction it was sent. */
const scripted = (outcomes: (Error | undefined)[]) => {
  const sent: string[][] = [];
  return {
    sent,
    client: {
      send: async (command: TransactWriteCommand) => {
        const items = command.input.TransactItems ?? [];
        sent.push(items.map((i) => (i.ConditionCheck ? 'fence' : String(i.Update?.Key?.id))));
        const outcome = outcomes.shift();
        if (outcome) throw outcome;
        return {};
      },
    },
  };
};

describe('transactionBatches', () => {
  test('a write and its companions stay together; batches stay under the size limit', () => {
    const big = (label: string) => ({
      label,
      item: { Update: { TableName: 't', Key: { id: label }, UpdateExpression: 'x'.repeat(1_000_000) } },
      with: [{ Put: { TableName: 't', Item: { id: `${label}-copy`, d: 'y'.repeat(700_000) } } }],
    });
    const batches = transactionBatches([big('a'), big('b'), big('c')]);
    assert.deepEqual(
      batches.map((b) => b.map((w) => w.label)),
      [['a', 'b'], ['c']],
    );
    for (const batch of batches)
      assert.ok(
        batch.flatMap((w) => [w.item, ...(w.with ?? [])]).reduce((n, i) => n + transactItemBytes(i), 0) <=
          MAX_TRANSACTION_BYTES,
      );
  });
});

describe('writeFenced', () => {
  test('every transaction starts with the fence and holds at most 100 items', async () => {
    const writes = Array.from({ length: MAX_WRITES_PER_TRANSACTION + 1 }, (_, i) => write(`w${i}`));
    const { client, sent } = scripted([]);
    const result = await writeFenced(client as never, fence, writes);
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.[0], 'fence');
    assert.equal(sent[0]?.length, 100);
    assert.deepEqual(sent[1], ['fence', `w${MAX_WRITES_PER_TRANSACTION}`]);
    assert.equal(result.written.length, writes.length);
  });

  test('a write whose condition failed is dropped as a conflict and the rest retried', async () => {
    const { client, sent } = scripted([cancelled(['None', 'None', 'ConditionalCheckFailed', 'None'])]);
    const result = await writeFenced(client as never, fence, [write('a'), write('b'), write('c')]);
    assert.deepEqual(result, { written: ['a', 'c'], conflicts: ['b'] });
    assert.deepEqual(sent[1], ['fence', 'a', 'c']);
  });

  test('a failed fence means the lease is lost: nothing more is written', async () => {
    const { client, sent } = scripted([cancelled(['ConditionalCheckFailed', 'None'])]);
    await assert.rejects(writeFenced(client as never, fence, [write('a'), write('b')]), LeaseLostError);
    assert.equal(sent.length, 1);
  });

  test('contention is retried a few times, then surfaces', async () => {
    const conflict = () => cancelled(['None', 'TransactionConflict']);
    const ok = scripted([conflict(), conflict()]);
    assert.deepEqual((await writeFenced(ok.client as never, fence, [write('a')])).written, ['a']);
    const stuck = scripted([conflict(), conflict(), conflict(), conflict(), conflict()]);
    await assert.rejects(
      writeFenced(stuck.client as never, fence, [write('a')]),
      TransactionCanceledException,
    );
  });

  test('other errors propagate untouched', async () => {
    const { client } = scripted([new Error('network down')]);
    await assert.rejects(writeFenced(client as never, fence, [write('a')]), /network down/);
  });
});
