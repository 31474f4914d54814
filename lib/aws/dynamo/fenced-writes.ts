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
  /** Items that must be written in the same transaction as `item`, or not at all (e.g. a desired-state copy). */
  readonly with?: readonly TransactItem[];
}

export interface FencedWriteResult {
  readonly written: string[];
  readonly conflicts: string[];
  /** Writes DynamoDB refused for themselves (e.g. an item over 400 KB), each alone, with the error. */
  readonly failed?: { label: string; error: string }[];
}

export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/** DynamoDB allows 100 items per transaction; one is the fence. */
export const MAX_WRITES_PER_TRANSACTION = 99;
/** DynamoDB caps a transaction at 4 MB; batches stay below this estimate of their size, with room to spare. */
export const MAX_TRANSACTION_BYTES = 3_500_000;
const MAX_CONFLICT_RETRIES = 3;

const itemsOf = (write: LabelledWrite): TransactItem[] => [write.item, ...(write.with ?? [])];
/** Upper estimate of an item's size in a request (its JSON text: names, values and expressions). */
export const transactItemBytes = (item: TransactItem): number =>
  Buffer.byteLength(JSON.stringify(item), 'utf8');

/** Consecutive batches of whole writes, each within the item-count and size limits of one transaction. */
export const transactionBatches = (writes: readonly LabelledWrite[]): LabelledWrite[][] => {
  const batches: LabelledWrite[][] = [];
  let current: LabelledWrite[] = [];
  let items = 0;
  let bytes = 0;
  for (const write of writes) {
    const own = itemsOf(write);
    const size = own.reduce((n, item) => n + transactItemBytes(item), 0);
    if (
      current.length > 0 &&
      (items + own.length > MAX_WRITES_PER_TRANSACTION || bytes + size > MAX_TRANSACTION_BYTES)
    ) {
      batches.push(current);
      current = [];
      items = 0;
      bytes = 0;
    }
    current.push(write);
    items += own.length;
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
};

export const writeFenced = async (
  client: Pick<DynamoDBDocumentClient, 'send'>,
  fence: TransactItem,
  writes: readonly LabelledWrite[],
): Promise<FencedWriteResult> => {
  const written: string[] = [];
  const conflicts: string[] = [];
  const refused: { label: string; error: string }[] = [];
  const pending = transactionBatches(writes);
  while (pending.length > 0) {
    let batch = pending.shift()!;
    let contention = 0;
    while (batch.length > 0) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [fence, ...batch.flatMap(itemsOf)] }));
        written.push(...batch.map((w) => w.label));
        break;
      } catch (error) {
        if (refusedForItself(error)) {
          // One write DynamoDB will never take must not sink the others: halve until it is alone, then skip it.
          if (batch.length === 1) refused.push({ label: batch[0]!.label, error: (error as Error).message });
          else
            pending.unshift(
              batch.slice(0, Math.ceil(batch.length / 2)),
              batch.slice(Math.ceil(batch.length / 2)),
            );
          break;
        }
        const reasons = cancellationCodes(error);
        if (!reasons) throw error;
        if (reasons[0] === 'ConditionalCheckFailed') {
          throw new LeaseLostError(
            'the round lease expired or was taken over; stopping without further writes',
          );
        }
        // Map each item's code back to the write it belongs to (a write spans its own item and its companions).
        const failed = new Set<number>();
        let offset = 1;
        batch.forEach((write, index) => {
          const span = itemsOf(write).length;
          if (reasons.slice(offset, offset + span).includes('ConditionalCheckFailed')) failed.add(index);
          offset += span;
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
  return { written, conflicts, ...(refused.length > 0 ? { failed: refused } : {}) };
};

/** A request DynamoDB rejects for what it contains (size limits, validation), not for contention or conditions. */
const refusedForItself = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ValidationException') return true;
  const codes = cancellationCodes(error);
  return codes?.includes('ValidationError') === true;
};

/** Per-item cancellation codes of a cancelled transaction (`None` for items that were fine), else undefined. */
const cancellationCodes = (error: unknown): string[] | undefined => {
  if (!(error instanceof Error) || error.name !== TransactionCanceledException.name) return undefined;
  const reasons = (error as TransactionCanceledException).CancellationReasons;
  return reasons?.map((r) => r.Code ?? 'None');
};
