/**
 * Telemetry to the SQS telemetry queue with SendMessageBatch: at most 10 entries per call (the SQS
 * limit), failed entries retried with back-off. Entries SQS rejects as the sender's fault (e.g. too
 * large) are not retried: they would fail again.
 */
import {
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';
import { TelemetryDeliveryError, type TelemetrySink } from './telemetry-sink.ts';

export const SQS_MAX_BATCH_ENTRIES = 10;
/** SQS also caps a batch's total payload; stay under the classic 256 KiB limit. */
export const SQS_MAX_BATCH_BYTES = 256 * 1024;

export interface SqsTelemetryOptions {
  queueUrl: string;
  /** Attempts per entry, the first included. */
  maxAttempts?: number;
  retryBaseMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SqsTelemetrySink implements TelemetrySink {
  constructor(
    private readonly client: Pick<SQSClient, 'send'>,
    private readonly options: SqsTelemetryOptions,
  ) {}

  async send(messages: readonly TelemetryMessage[]): Promise<void> {
    const undelivered: TelemetryMessage[] = [];
    const errors: string[] = [];
    let rejected = 0;
    for (const batch of batches(messages)) {
      const result = await this.sendBatchWithRetry(batch, errors);
      undelivered.push(...result.undelivered);
      rejected += result.rejected;
    }
    if (undelivered.length > 0 || rejected > 0) {
      throw new TelemetryDeliveryError(
        `SQS ${this.options.queueUrl}: ${undelivered.length + rejected} of ${messages.length} messages not delivered, ${rejected} rejected for good (${errors.slice(-3).join('; ')})`,
        undelivered,
      );
    }
  }

  /** Messages still undelivered after every attempt, and how many SQS rejected as the sender's fault. */
  private async sendBatchWithRetry(
    batch: TelemetryMessage[],
    errors: string[],
  ): Promise<{ undelivered: TelemetryMessage[]; rejected: number }> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    const sleep = this.options.sleep ?? defaultSleep;
    let pending = batch.map((message, index) => ({ id: String(index), message }));
    let rejected = 0;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await sleep((this.options.retryBaseMs ?? 200) * 2 ** (attempt - 2));
      const entries: SendMessageBatchRequestEntry[] = pending.map(({ id, message }) => ({
        Id: id,
        MessageBody: JSON.stringify(message),
      }));
      let retry: typeof pending;
      try {
        const output = await this.client.send(
          new SendMessageBatchCommand({ QueueUrl: this.options.queueUrl, Entries: entries }),
        );
        const failed = output.Failed ?? [];
        for (const failure of failed)
          errors.push(`${failure.Code ?? 'error'}: ${failure.Message ?? ''}`.trim());
        rejected += failed.filter((failure) => failure.SenderFault).length;
        const retryIds = new Set(
          failed.filter((failure) => !failure.SenderFault).map((failure) => failure.Id),
        );
        retry = pending.filter(({ id }) => retryIds.has(id));
      } catch (error) {
        errors.push((error as Error).message);
        retry = pending; // the whole call failed (network, throttling): retry every entry
      }
      pending = retry;
      if (attempt >= maxAttempts) break;
    }
    return { undelivered: pending.map(({ message }) => message), rejected };
  }
}

function* batches(messages: readonly TelemetryMessage[]): Generator<TelemetryMessage[]> {
  let batch: TelemetryMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(JSON.stringify(message));
    if (batch.length > 0 && (batch.length === SQS_MAX_BATCH_ENTRIES || bytes + size > SQS_MAX_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
