/**
 * The telemetry function: agent reports from the `telemetry` queue, validated with the protocol's zod schemas and
 * bound to their sender: a report counts only for the host whose instance role sent it (SQS `SenderId`), and a
 * host may speak only about jobs placed on it. A batch is coalesced (newest heartbeat per host, furthest progress
 * per job) into one write each; a failed write fails exactly the records it served (partial batch response).
 * Malformed and rejected messages go to the DLQ with the reason, counted in `InvalidTelemetry` and
 * `RejectedTelemetry`.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ENV } from '../../lib/aws/environment.ts';
import { DeadLetterQueue } from '../../lib/aws/sqs/dead-letter.ts';
import { SchedulerEvents } from '../../lib/aws/sqs/scheduler-events.ts';
import { TelemetryApplier } from '../../lib/aws/telemetry/apply-telemetry.ts';
import { coalesceTelemetry, type Received } from '../../lib/aws/telemetry/coalesce.ts';
import { RejectedClaimError, senderMismatch } from '../../lib/aws/telemetry/sender.ts';
import { formatZodIssues } from '../../lib/protocol/format.ts';
import { telemetryMessageSchema } from '../../lib/protocol/telemetry.ts';
import { functionDeps, type HandlerOptions, lazyHandler } from '../shared/function-deps.ts';
import { detailsLogger } from '../shared/observability.ts';

type Parsed = { ok: true; received: Received } | { ok: false; reason: string; forged?: boolean };

const parseRecord = (record: SQSRecord): Parsed => {
  let value: unknown;
  try {
    value = JSON.parse(record.body);
  } catch (error) {
    return { ok: false, reason: `(message): must be JSON (${(error as Error).message})` };
  }
  const parsed = telemetryMessageSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: formatZodIssues(parsed.error.issues).trim() };
  const mismatch = senderMismatch(record.attributes?.SenderId, parsed.data.hostId);
  if (mismatch) return { ok: false, reason: mismatch, forged: true };
  return { ok: true, received: { recordId: record.messageId, message: parsed.data } };
};

export const createTelemetryHandler = (options: HandlerOptions) => {
  const deps = functionDeps('telemetry', options);
  const deadLetters = new DeadLetterQueue(deps.clients.sqs, deps.env[ENV.telemetryDlqUrl]);
  const applier = new TelemetryApplier({
    jobs: deps.jobs,
    hosts: deps.hosts,
    profiles: deps.profiles,
    schedulerEvents: new SchedulerEvents(deps.clients.sqs, deps.env[ENV.schedulerEventsQueueUrl]),
    clock: deps.clock,
    log: detailsLogger(deps.logger),
  });
  const processor = new BatchProcessor(EventType.SQS);

  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics))
    .handler(async (event, context) => {
      const parsed = new Map(event.Records.map((r) => [r.messageId, parseRecord(r)]));
      const valid = [...parsed.values()].flatMap((p) => (p.ok ? [p.received] : []));
      const failures = await applyAll(applier, valid);
      deps.metrics.addMetric('TelemetryMessages', 'Count', valid.length);
      return processPartialResponse(
        event,
        async (record: SQSRecord) => {
          const result = parsed.get(record.messageId)!;
          const failure = failures.get(record.messageId);
          const rejection = !result.ok
            ? result
            : failure instanceof RejectedClaimError
              ? { reason: failure.message, forged: true }
              : undefined;
          if (rejection) {
            deps.logger.warn('rejected a telemetry message', {
              messageId: record.messageId,
              senderId: record.attributes?.SenderId,
              reason: rejection.reason,
            });
            deps.metrics.addMetric(rejection.forged ? 'RejectedTelemetry' : 'InvalidTelemetry', 'Count', 1);
            await deadLetters.send({
              body: record.body,
              reason: rejection.reason,
              sourceMessageId: record.messageId,
              sourceQueueArn: record.eventSourceARN,
            });
            return;
          }
          if (failure) throw failure;
        },
        processor,
        { context },
      );
    });
};

/** Applies a batch; returns the error of every record whose write failed. */
const applyAll = async (
  applier: TelemetryApplier,
  valid: readonly Received[],
): Promise<Map<string, Error>> => {
  const writes = coalesceTelemetry(valid);
  const failures = new Map<string, Error>();
  const fail = (ids: readonly string[], error: unknown) => {
    for (const id of ids) failures.set(id, error instanceof Error ? error : new Error(String(error)));
  };
  for (const { recordId, message } of writes.events) {
    try {
      await applier.applyEvent(message);
    } catch (error) {
      fail([recordId], error);
    }
  }
  await Promise.all([
    ...writes.heartbeats.map((h) =>
      applier.applyHeartbeat(h).catch((error: unknown) => fail(h.recordIds, error)),
    ),
    ...writes.progress.map((p) =>
      applier.applyProgress(p).catch((error: unknown) => fail(p.recordIds, error)),
    ),
  ]);
  return failures;
};

export const handler = lazyHandler(() => createTelemetryHandler({ env: process.env }));
