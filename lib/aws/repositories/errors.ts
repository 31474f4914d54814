/** True for a failed DynamoDB condition (plain writes; transactions report it per item instead). */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** A conditional write's result, or undefined when its condition failed (any other error is thrown). */
export const unlessConditionFailed = async <T>(write: Promise<T>): Promise<T | undefined> => {
  try {
    return await write;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
};

/** An item read back from a table that does not match its schema: logged and skipped, never fatal to a batch. */
export class CorruptItemError extends Error {
  override readonly name = 'CorruptItemError';
}
