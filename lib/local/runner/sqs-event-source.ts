/**
 * Emulates a Lambda SQS event source mapping against a real (or emulated) queue: long-polls, gathers up to
 * `batchSize` messages within the batching window, invokes the function, then deletes what succeeded — all of the
 * batch, or with ReportBatchItemFailures all but the reported records. Failed records stay in flight until their
 * visibility timeout expires and are received again; the queue's own redrive policy moves them to the DLQ after
 * `maxReceiveCount` receives, exactly as in AWS.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { sqsEvent } from './lambda-events.ts';

export interface SqsEventSourceOptions {
  readonly sqs: Pick<SQSClient, 'send'>;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  readonly batchSize: number;
  readonly batchingWindowMs: number;
  readonly reportBatchItemFailures: boolean;
  /** Overrides the queue's visibility timeout per receive (tests use short ones). */
  readonly visibilityTimeoutSeconds?: number;
  readonly invoke: (event: SQSEvent) => Promise<unknown>;
  readonly onError?: (error: unknown) => void;
}

export interface EventSourceStats {
  invocations: number;
  failedInvocations: number;
  deleted: number;
  /** Records the function reported as failed (left for redelivery). */
  reportedFailures: number;
}

const SQS_MAX_RECEIVE = 10;

export class SqsEventSource {
  readonly stats: EventSourceStats = {
    invocations: 0,
    failedInvocations: 0,
    deleted: 0,
    reportedFailures: 0,
  };
  private running = false;
  private loop: Promise<void> | undefined;
  private idleWaiters: (() => void)[] = [];
  private busy = false;

  constructor(private readonly options: SqsEventSourceOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Resolves once no batch is being processed (a quiescence point for tests). */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const batch = await this.gather();
        if (batch.length === 0) continue;
        this.busy = true;
        await this.process(batch);
      } catch (error) {
        this.options.onError?.(error);
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        this.busy = false;
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    }
  }

  /** Up to batchSize messages: the first long-poll waits for one, then the window collects more. */
  private async gather(): Promise<Message[]> {
    const batch: Message[] = [];
    let deadline: number | undefined;
    while (this.running && batch.length < this.options.batchSize) {
      const remaining = deadline === undefined ? 1000 : deadline - Date.now();
      if (deadline !== undefined && remaining <= 0) break;
      const output = await this.options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.options.queueUrl,
          MaxNumberOfMessages: Math.min(SQS_MAX_RECEIVE, this.options.batchSize - batch.length),
          WaitTimeSeconds: remaining >= 1000 ? 1 : 0,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
          ...(this.options.visibilityTimeoutSeconds !== undefined
            ? { VisibilityTimeout: this.options.visibilityTimeoutSeconds }
            : {}),
        }),
      );
      const messages = output.Messages ?? [];
      batch.push(...messages);
      if (batch.length === 0) continue;
      if (this.options.batchingWindowMs <= 0) break;
      deadline ??= Date.now() + this.options.batchingWindowMs;
      if (messages.length === 0 && deadline - Date.now() < 1000)
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(50, Math.max(0, deadline! - Date.now()))),
        );
    }
    return batch;
  }

  private async process(batch: Message[]): Promise<void> {
    this.stats.invocations++;
    let response: unknown;
    try {
      response = await this.options.invoke(sqsEvent(batch, this.options.queueArn, this.options.region));
    } catch (error) {
      // The whole batch failed: every message becomes visible again after its timeout.
      this.stats.failedInvocations++;
      this.options.onError?.(error);
      return;
    }
    const failed = new Set<string>();
    if (this.options.reportBatchItemFailures) {
      for (const failure of (response as SQSBatchResponse | undefined)?.batchItemFailures ?? [])
        failed.add(failure.itemIdentifier);
    }
    this.stats.reportedFailures += failed.size;
    const done = batch.filter((m) => !failed.has(m.MessageId ?? ''));
    for (let i = 0; i < done.length; i += SQS_MAX_RECEIVE) {
      const chunk = done.slice(i, i + SQS_MAX_RECEIVE);
      await this.options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.queueUrl,
          Entries: chunk.map((m, index) => ({ Id: String(index), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
      this.stats.deleted += chunk.length;
    }
  }
}
