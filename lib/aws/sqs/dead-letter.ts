/**
 * Sends a message the handler rejected for good (an invalid job spec, a malformed telemetry message) to the
 * queue's DLQ itself, with the reason as a message attribute, instead of letting SQS retry it until the redrive
 * policy moves it there without one. The handler then reports the record as processed.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

export const REJECTION_REASON_ATTRIBUTE = 'tessera-rejection-reason';
export const SOURCE_MESSAGE_ID_ATTRIBUTE = 'tessera-source-message-id';
export const SOURCE_QUEUE_ATTRIBUTE = 'tessera-source-queue';

/** SQS caps one attribute value (and the message) at 256 KiB; reasons are kept well below. */
const MAX_REASON_CHARS = 4000;

export interface DeadLetter {
  readonly body: string;
  readonly reason: string;
  readonly sourceMessageId: string;
  readonly sourceQueueArn: string;
}

export class DeadLetterQueue {
  constructor(
    private readonly sqs: Pick<SQSClient, 'send'>,
    private readonly queueUrl: string,
  ) {}

  async send(letter: DeadLetter): Promise<void> {
    const reason =
      letter.reason.length > MAX_REASON_CHARS
        ? `${letter.reason.slice(0, MAX_REASON_CHARS - 1)}…`
        : letter.reason;
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: letter.body.length > 0 ? letter.body : '(empty message)',
        MessageAttributes: {
          [REJECTION_REASON_ATTRIBUTE]: { DataType: 'String', StringValue: reason },
          [SOURCE_MESSAGE_ID_ATTRIBUTE]: { DataType: 'String', StringValue: letter.sourceMessageId },
          [SOURCE_QUEUE_ATTRIBUTE]: { DataType: 'String', StringValue: letter.sourceQueueArn || 'unknown' },
        },
      }),
    );
  }
}
