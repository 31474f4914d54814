/**
 * The ingest function: job specs from the `submissions` queue. The tenant is the message's sender (the IAM
 * principal id SQS records). Each message is submitted idempotently — its clientToken, else its SQS message id,
 * keys the job — so a redelivered message never creates a second job. An invalid spec is sent to the DLQ with
 * the reason as a message attribute and nothing is written; a transient failure fails only its own record
 * (partial batch response), which SQS retries and finally redrives to the DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ENV } from '../../lib/aws/environment.ts';
import { DeadLetterQueue } from '../../lib/aws/sqs/dead-letter.ts';
import { SchedulerEvents } from '../../lib/aws/sqs/scheduler-events.ts';
import { ClientTokenConflictError, submitJob } from '../../lib/aws/submit-job.ts';
import { formatJobSpecIssues, parseJobSpecJson } from '../../lib/protocol/job-spec.ts';
import { functionDeps, type HandlerOptions, lazyHandler } from '../shared/function-deps.ts';
import { detailsLogger } from '../shared/observability.ts';

export const createIngestHandler = (options: HandlerOptions) => {
  const deps = functionDeps('ingest', options);
  const schedulerEvents = new SchedulerEvents(deps.clients.sqs, deps.env[ENV.schedulerEventsQueueUrl]);
  const deadLetters = new DeadLetterQueue(deps.clients.sqs, deps.env[ENV.submissionsDlqUrl]);
  const log = detailsLogger(deps.logger);

  const reject = async (record: SQSRecord, reason: string) => {
    deps.logger.warn('rejected a submission', { messageId: record.messageId, reason });
    deps.metrics.addMetric('InvalidSubmissions', 'Count', 1);
    await deadLetters.send({
      body: record.body,
      reason,
      sourceMessageId: record.messageId,
      sourceQueueArn: record.eventSourceARN,
    });
  };

  const submitRecord = async (record: SQSRecord): Promise<void> => {
    const parsed = parseJobSpecJson(record.body);
    if (!parsed.ok) return reject(record, formatJobSpecIssues(parsed.issues));
    const tenant = record.attributes.SenderId;
    if (!tenant) return reject(record, '(message): has no SenderId attribute to take the tenant from');
    try {
      const result = await submitJob(
        { jobs: deps.jobs, schedulerEvents, clock: deps.clock, log },
        { document: parsed.document, tenant, fallbackToken: record.messageId },
      );
      if (result.created) deps.metrics.addMetric('JobsSubmitted', 'Count', 1);
      deps.logger.info(result.created ? 'job submitted' : 'duplicate submission; job exists', {
        jobId: result.job.jobId,
        messageId: record.messageId,
      });
    } catch (error) {
      if (error instanceof ClientTokenConflictError) return reject(record, error.message);
      throw error;
    }
  };

  const processor = new BatchProcessor(EventType.SQS);
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics))
    .handler((event, context) => processPartialResponse(event, submitRecord, processor, { context }));
};

export const handler = lazyHandler(() => createIngestHandler({ env: process.env }));
