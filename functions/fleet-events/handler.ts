/**
 * The fleet-events function: EC2 instance state changes and Spot interruption warnings from EventBridge
 * (see lib/aws/fleet-events/apply-fleet-event.ts). Events of other shapes are logged and dropped; failures throw,
 * so Lambda retries the asynchronous invocation and finally sends it to the function's DLQ.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { ENV } from '../../lib/aws/environment.ts';
import {
  applyFleetEvent,
  type FleetEventOutcome,
  fleetEventSchema,
} from '../../lib/aws/fleet-events/apply-fleet-event.ts';
import { SchedulerEvents } from '../../lib/aws/sqs/scheduler-events.ts';
import { formatZodIssues } from '../../lib/protocol/format.ts';
import { functionDeps, type HandlerOptions, lazyHandler } from '../shared/function-deps.ts';
import { detailsLogger } from '../shared/observability.ts';

export const createFleetEventsHandler = (options: HandlerOptions) => {
  const deps = functionDeps('fleet-events', options);
  const schedulerEvents = new SchedulerEvents(deps.clients.sqs, deps.env[ENV.schedulerEventsQueueUrl]);
  return middy<EventBridgeEvent<string, unknown>, FleetEventOutcome | undefined, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics))
    .handler(async (event) => {
      const parsed = fleetEventSchema.safeParse(event);
      if (!parsed.success) {
        deps.logger.warn('ignoring an event that is not an EC2 state change or Spot warning', {
          detailType: event['detail-type'],
          issues: formatZodIssues(parsed.error.issues),
        });
        return undefined;
      }
      const outcome = await applyFleetEvent(
        {
          dynamodb: deps.clients.dynamodb,
          jobs: deps.jobs,
          hosts: deps.hosts,
          schedulerEvents,
          clock: deps.clock,
          log: detailsLogger(deps.logger),
        },
        parsed.data,
      );
      if (outcome.result !== 'ignored') {
        deps.metrics.addMetric(outcome.result === 'lost' ? 'HostsLost' : 'HostsDraining', 'Count', 1);
        deps.metrics.addMetric('JobsRequeued', 'Count', outcome.requeued.length);
      }
      deps.logger.info('fleet event applied', { ...outcome, detailType: event['detail-type'] });
      return outcome;
    });
};

export const handler = lazyHandler(() => createFleetEventsHandler({ env: process.env }));
