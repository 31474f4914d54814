/**
 * The three queues and their DLQs, all with SSE (SQS-managed keys) and TLS-only policies. Visibility timeouts
 * are six times the consuming function's timeout, as Lambda's event source mappings recommend.
 */
import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface TesseraQueuesProps {
  /** Timeouts of the functions that consume each queue. */
  readonly ingestTimeout: Duration;
  readonly roundTimeout: Duration;
  readonly telemetryTimeout: Duration;
}

/** Deliveries before SQS moves a message to its DLQ. */
export const MAX_RECEIVE_COUNT = 5;

const secure = { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true } as const;
const retention = Duration.days(14);

export class TesseraQueues extends Construct {
  readonly submissions: Queue;
  readonly submissionsDlq: Queue;
  readonly schedulerEvents: Queue;
  readonly schedulerEventsDlq: Queue;
  readonly telemetry: Queue;
  readonly telemetryDlq: Queue;
  /** Events EventBridge could not deliver and asynchronous invocations that failed for good. */
  readonly eventsDlq: Queue;

  constructor(scope: Construct, id: string, props: TesseraQueuesProps) {
    super(scope, id);
    this.submissionsDlq = new Queue(this, 'SubmissionsDlq', { ...secure, retentionPeriod: retention });
    this.submissions = new Queue(this, 'Submissions', {
      ...secure,
      visibilityTimeout: Duration.seconds(props.ingestTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.submissionsDlq, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.schedulerEventsDlq = new Queue(this, 'SchedulerEventsDlq', {
      ...secure,
      fifo: true,
      retentionPeriod: retention,
    });
    this.schedulerEvents = new Queue(this, 'SchedulerEvents', {
      ...secure,
      fifo: true,
      visibilityTimeout: Duration.seconds(props.roundTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.schedulerEventsDlq, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.telemetryDlq = new Queue(this, 'TelemetryDlq', { ...secure, retentionPeriod: retention });
    this.telemetry = new Queue(this, 'Telemetry', {
      ...secure,
      visibilityTimeout: Duration.seconds(props.telemetryTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.telemetryDlq, maxReceiveCount: MAX_RECEIVE_COUNT },
    });
    this.eventsDlq = new Queue(this, 'EventsDlq', { ...secure, retentionPeriod: retention });
  }

  get deadLetterQueues(): Queue[] {
    return [this.submissionsDlq, this.schedulerEventsDlq, this.telemetryDlq, this.eventsDlq];
  }
}
