/** True for a failed DynamoDB condition (plain writes; transactions report it per item instead). */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** An item read back from a table that does not match its schema: logged and skipped, never fatal to a batch. */
export class CorruptItemError extends Error {
  override readonly name = 'CorruptItemError';
}
