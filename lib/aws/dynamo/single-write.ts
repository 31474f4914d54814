import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed } from '../repositories/errors.ts';
import type { LabelledWrite } from './fenced-writes.ts';

/** Sends one transactional update on its own (no fence); false when its condition failed. */
export const applyUpdate = async (
  client: Pick<DynamoDBDocumentClient, 'send'>,
  write: LabelledWrite,
): Promise<boolean> => {
  const update = write.item.Update;
  if (!update) throw new Error(`${write.label}: only updates can be applied on their own`);
  try {
    await client.send(new UpdateCommand(update));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
};
