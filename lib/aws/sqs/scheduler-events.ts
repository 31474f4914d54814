/**
 * Messages to the `scheduler-events.fifo` queue: arrivals, completions, cancellations and host losses, each
 * asking for an early round. One message group, so the round function never runs two of them at once; the
 * deduplication id makes a repeated notice of the same fact within SQS's 5-minute window a no-op.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';

export const SCHEDULER_EVENT_GROUP = 'rounds';

export const schedulerEventSchema = z.object({
  kind: z.enum(['arrival', 'completion', 'cancel', 'hostLost', 'hostDraining', 'gangBroken']),
  /** The job or host the event is about. */
  subject: z.string().min(1),
  /** Epoch seconds. */
  at: z.number(),
});
export type SchedulerEvent = z.infer<typeof schedulerEventSchema>;

export class SchedulerEvents {
  constructor(
    private readonly sqs: Pick<SQSClient, 'send'>,
    private readonly queueUrl: string,
  ) {}

  async publish(event: SchedulerEvent): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(event),
        MessageGroupId: SCHEDULER_EVENT_GROUP,
        MessageDeduplicationId: `${event.kind}-${event.subject}`
          .replace(/[^A-Za-z0-9._:-]/g, '_')
          .slice(0, 128),
      }),
    );
  }
}
