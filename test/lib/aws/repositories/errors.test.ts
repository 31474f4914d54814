import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConditionalCheckFailed, unlessConditionFailed } from '../../../../lib/aws/repositories/errors.ts';

const failure = (name: string): Error => Object.assign(new Error(name), { name });

describe('conditional writes', () => {
  it('a failed DynamoDB condition is recognised by its error name', () => {
    assert.equal(isConditionalCheckFailed(failure('ConditionalCheckFailedException')), true);
    assert.equal(isConditionalCheckFailed(failure('TransactionCanceledException')), false);
    assert.equal(isConditionalCheckFailed('ConditionalCheckFailedException'), false);
  });

  it('unlessConditionFailed gives the write result, or undefined when the condition failed', async () => {
    assert.deepEqual(await unlessConditionFailed(Promise.resolve({ Attributes: { a: 1 } })), {
      Attributes: { a: 1 },
    });
    assert.equal(
      await unlessConditionFailed(Promise.reject(failure('ConditionalCheckFailedException'))),
      undefined,
    );
  });

  it('unlessConditionFailed rethrows every other error (throttling is not a lost race)', async () => {
    await assert.rejects(
      unlessConditionFailed(Promise.reject(failure('ProvisionedThroughputExceededException'))),
      /ProvisionedThroughputExceededException/,
    );
  });
});
