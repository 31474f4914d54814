/**
 * Writes of a lease holder, each batch in one TransactWriteItems together with a ConditionCheck on the lease
 * (the fence): a round whose lease expired and was taken over can no longer write anything. A write whose own
 * condition fails (someone changed the item since it was read) is dropped and reported as a conflict; the rest
 * of its batch is retried without it. The next round re-reads and converges.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface LabelledWrite {
  /** What the write is, for logs and results (e.g. `job job-7`, `host i-0abc`). */
  readonly label: string;
  readonly item: TransactItem;
}

export interface FencedWriteResult {
  readonly written: string[];
  readonly conflicts: string[];
}

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** DynamoDB allows 100 items per transaction; one is the fence. */
export const MAX_WRITES_PER_TRANSACTION = 99;
const MAX_CONFLICT_RETRIES = 3;

export const writeFenced = async (
  client: Pick<DynamoDBDocumentClient, 'send'>,
  fence: TransactItem,
  writes: readonly LabelledWrite[],
): Promise<FencedWriteResult> => {
  const written: string[] = [];
  const conflicts: string[] = [];
  for (let start = 0; start < writes.length; start += MAX_WRITES_PER_TRANSACTION) {
    let batch = writes.slice(start, start + MAX_WRITES_PER_TRANSACTION);
    let contention = 0;
    while (batch.length > 0) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [fence, ...batch.map((w) => w.item)] }));
        written.push(...batch.map((w) => w.label));
        break;
      } catch (error) {
        const reasons = cancellationCodes(error);
        if (!reasons) throw error;
        if (reasons[0] === 'ConditionalCheckFailed') {
          throw new LeaseLostError(
            'the round lease expired or was taken over; stopping without further writes',
          );
        }
        const failed = new Set<number>();
        reasons.slice(1).forEach((code, index) => {
          if (code === 'ConditionalCheckFailed') failed.add(index);
        });
        if (failed.size === 0) {
          // Cancelled for contention (TransactionConflict) rather than a condition: try the same batch again.
          if (++contention > MAX_CONFLICT_RETRIES) throw error;
          continue;
        }
        conflicts.push(...batch.filter((_, i) => failed.has(i)).map((w) => w.label));
        batch = batch.filter((_, i) => !failed.has(i));
      }
    }
  }
  return { written, conflicts };
};

/** Per-item cancellation codes of a cancelled transaction (`None` for items that were fine), else undefined. */
const cancellationCodes = (error: unknown): string[] | undefined => {
  if (!(error instanceof Error) || error.name !== TransactionCanceledException.name) return undefined;
  const reasons = (error as TransactionCanceledException).CancellationReasons;
  return reasons?.map((r) => r.Code ?? 'None');
};
