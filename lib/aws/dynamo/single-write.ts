import { type DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../repositories/errors.ts';
import type { LabelledWrite } from './fenced-writes.ts';

/** Sends one transactional update (with its companion items, atomically) on its own (no fence); false when its condition failed. */
export const applyUpdate = async (
  client: Pick<DynamoDBDocumentClient, 'send'>,
  write: LabelledWrite,
): Promise<boolean> => {
  const update = write.item.Update;
  if (!update) throw new Error(`${write.label}: only updates can be applied on their own`);
  try {
    if (write.with && write.with.length > 0)
      await client.send(new TransactWriteCommand({ TransactItems: [write.item, ...write.with] }));
    else await client.send(new UpdateCommand(update));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error) || cancelledByCondition(error)) return false;
    throw error;
  }
};

const cancelledByCondition = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'TransactionCanceledException' &&
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some(
    (r) => r.Code === 'ConditionalCheckFailed',
  );
