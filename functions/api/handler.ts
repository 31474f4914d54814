/**
 * The API function (API Gateway REST, IAM auth). Bodies are parsed by the shared job-spec parser rather than
 * middy's JSON body parser, so size, syntax and schema errors all come back as one 400 naming the field.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ENV } from '../../lib/aws/environment.ts';
import { S3LogStore } from '../../lib/aws/logs/s3-log-store.ts';
import { SchedulerEvents } from '../../lib/aws/sqs/scheduler-events.ts';
import { functionDeps, type HandlerOptions, lazyHandler } from '../shared/function-deps.ts';
import { isThrottling, route, throttled } from './routes.ts';

export const createApiHandler = (options: HandlerOptions) => {
  const deps = functionDeps('api', options);
  const schedulerEvents = new SchedulerEvents(deps.clients.sqs, deps.env[ENV.schedulerEventsQueueUrl]);
  const bucket = deps.env[ENV.bucket];
  const logs = bucket ? new S3LogStore(deps.clients.s3, bucket) : null;
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics))
    .use(httpHeaderNormalizer())
    .use(
      httpErrorHandler({
        fallbackMessage: 'internal error',
        logger: (error) => deps.logger.error('request failed', { error: String(error) }),
      }),
    )
    .handler(async (event) => {
      try {
        return await route({ ...deps, schedulerEvents, logs }, event);
      } catch (error) {
        if (!isThrottling(error)) throw error;
        deps.logger.warn('throttled; answered 503 with Retry-After', { error: String(error) });
        deps.metrics.addMetric('ApiThrottled', 'Count', 1);
        return throttled();
      }
    });
};

export const handler = lazyHandler(() => createApiHandler({ env: process.env }));
