/**
 * The API's routes: `POST /jobs`, `GET /jobs`, `GET /jobs/{id}`, `GET /jobs/{id}/logs` (logs-route.ts),
 * `DELETE /jobs/{id}`, `GET /cluster`, `GET /config` (where the CLI uploads working directories: config-view.ts). The tenant
 * is the IAM principal API Gateway authenticated; a tenant sees only its own jobs (another tenant's job is a 404,
 * so ids leak nothing). Bad input is a 400 whose body names every field and the rule it broke.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { InvalidCursorError } from '../../lib/aws/dynamo/pagination.ts';
import { appendTimeline } from '../../lib/aws/items/job-timeline.ts';
import type { LogChunkStore } from '../../lib/aws/logs/log-store.ts';
import { TenantSummaryRepository } from '../../lib/aws/repositories/tenant-summary-repository.ts';
import type { SchedulerEvents } from '../../lib/aws/sqs/scheduler-events.ts';
import { ClientTokenConflictError, submitJob } from '../../lib/aws/submit-job.ts';
import { RETENTION } from '../../lib/aws/tables.ts';
import { isTerminal, JOB_STATUSES, type JobStatus } from '../../lib/core/model/job.ts';
import { type JobSpecIssue, parseJobSpecJson } from '../../lib/protocol/job-spec.ts';
import type { FunctionDeps } from '../shared/function-deps.ts';
import { detailsLogger } from '../shared/observability.ts';
import { configView } from './config-view.ts';
import { getLogs } from './logs-route.ts';
import { hostView, jobView } from './views.ts';

export interface ApiDeps extends FunctionDeps<'api'> {
  readonly schedulerEvents: SchedulerEvents;
  /** Where worker logs are read from; null: the deployment stores none. */
  readonly logs?: LogChunkStore | null;
}

const JOB_ID = /^job-[A-Za-z0-9-]{1,64}$/;
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export const badRequest = (issues: readonly JobSpecIssue[]): APIGatewayProxyResult =>
  json(400, {
    error: 'BadRequest',
    message: issues.map((i) => `${i.field}: ${i.rule}`).join('; '),
    issues,
  });

const notFound = (jobId: string) => json(404, { error: 'NotFound', message: `job ${jobId} not found` });

/** The authenticated caller (IAM principal id, as SQS reports senders), or undefined without IAM auth. */
export const tenantOf = (event: APIGatewayProxyEvent): string | undefined => {
  const identity = event.requestContext?.identity;
  return identity?.user ?? identity?.userArn ?? identity?.caller ?? undefined;
};

export const route = async (deps: ApiDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  const tenant = tenantOf(event);
  if (!tenant)
    return json(403, { error: 'Forbidden', message: 'requests must be signed with IAM credentials' });
  const key = `${event.httpMethod} ${event.resource}`;
  switch (key) {
    case 'POST /jobs':
      return submit(deps, event, tenant);
    case 'GET /jobs':
      return list(deps, event, tenant);
    case 'GET /jobs/{id}':
      return withJobId(event, (jobId) => get(deps, jobId, tenant));
    case 'GET /jobs/{id}/logs':
      return withJobId(event, (jobId) => getLogs({ ...deps, logs: deps.logs ?? null }, event, jobId, tenant));
    case 'DELETE /jobs/{id}':
      return withJobId(event, (jobId) => cancel(deps, jobId, tenant));
    case 'GET /cluster':
      return cluster(deps, tenant);
    case 'GET /config':
      return json(200, configView(deps.env));
    default:
      return json(404, { error: 'NotFound', message: `no route ${key}` });
  }
};

const withJobId = (
  event: APIGatewayProxyEvent,
  then: (jobId: string) => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> => {
  const jobId = event.pathParameters?.id ?? '';
  if (!JOB_ID.test(jobId))
    return Promise.resolve(badRequest([{ field: 'id', rule: 'must be a job id (job-[A-Za-z0-9-]{1,64})' }]));
  return then(jobId);
};

const submit = async (deps: ApiDeps, event: APIGatewayProxyEvent, tenant: string) => {
  const text =
    event.body === null
      ? ''
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  const contentType = event.headers?.['content-type'] ?? event.headers?.['Content-Type'];
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    return badRequest([{ field: 'content-type', rule: `must be application/json, got ${contentType}` }]);
  }
  const parsed = parseJobSpecJson(text);
  if (!parsed.ok) {
    deps.metrics.addMetric('InvalidSubmissions', 'Count', 1);
    return badRequest(parsed.issues);
  }
  try {
    const result = await submitJob(
      {
        jobs: deps.jobs,
        schedulerEvents: deps.schedulerEvents,
        clock: deps.clock,
        log: detailsLogger(deps.logger),
      },
      { document: parsed.document, tenant },
    );
    if (result.created) deps.metrics.addMetric('JobsSubmitted', 'Count', 1);
    return json(result.created ? 201 : 200, { job: jobView(result.job), created: result.created });
  } catch (error) {
    if (error instanceof ClientTokenConflictError)
      return json(409, {
        error: 'Conflict',
        message: error.message,
        issues: [{ field: 'clientToken', rule: 'must not be reused for a different spec' }],
      });
    throw error;
  }
};

const list = async (deps: ApiDeps, event: APIGatewayProxyEvent, tenant: string) => {
  const query = event.queryStringParameters ?? {};
  const issues: JobSpecIssue[] = [];
  const limitText = query.limit ?? String(DEFAULT_PAGE_SIZE);
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_PAGE_SIZE)
    issues.push({ field: 'limit', rule: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  const status = query.status;
  if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status))
    issues.push({ field: 'status', rule: `must be one of ${JOB_STATUSES.join(', ')}` });
  if (issues.length > 0) return badRequest(issues);
  try {
    const page = await deps.jobs.listByTenant(tenant, {
      limit,
      ...(query.nextToken ? { nextToken: query.nextToken } : {}),
      ...(status ? { status: status as JobStatus } : {}),
    });
    return json(200, {
      jobs: page.items.map(jobView),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    });
  } catch (error) {
    // A cursor that decodes but names no key of this listing (forged, or another listing's): DynamoDB refuses it.
    if (
      error instanceof InvalidCursorError ||
      (query.nextToken && (error as Error).name === 'ValidationException')
    )
      return badRequest([{ field: 'nextToken', rule: 'must be a token returned by a previous page' }]);
    throw error;
  }
};

const get = async (deps: ApiDeps, jobId: string, tenant: string) => {
  const job = await deps.jobs.get(jobId);
  if (!job || job.tenant !== tenant) return notFound(jobId);
  return json(200, { job: jobView(job) });
};

/**
 * Waiting jobs are cancelled at once; running ones are marked and the round stops them (202). Cancelling a
 * cancelled job is a no-op; a finished or failed one cannot be cancelled (409).
 */
const cancel = async (deps: ApiDeps, jobId: string, tenant: string) => {
  for (let attempt = 0; attempt < 3; attempt++) {
    const job = await deps.jobs.get(jobId);
    if (!job || job.tenant !== tenant) return notFound(jobId);
    if (job.status === 'cancelled' || job.cancelRequested) return json(200, { job: jobView(job) });
    if (isTerminal(job.status))
      return json(409, { error: 'Conflict', message: `job ${jobId} already ${job.status}` });
    const now = deps.clock();
    const waiting = job.status === 'queued' || job.status === 'suspended';
    const timeline = appendTimeline(job.timeline, {
      at: now,
      kind: waiting ? 'cancelled' : 'cancelRequested',
    });
    const updated = await deps.jobs.updateIf(
      jobId,
      waiting
        ? {
            set: {
              status: 'cancelled',
              updatedAt: now,
              expiresAt: Math.floor(now) + RETENTION.terminalJobSeconds,
              timeline,
            },
          }
        : { set: { cancelRequested: true, updatedAt: now, timeline } },
      { status: [job.status], equals: { jobGeneration: job.jobGeneration } },
    );
    if (!updated) continue; // changed meanwhile (started, finished): decide again
    await deps.schedulerEvents
      .publish({ kind: 'cancel', subject: jobId, at: now })
      .catch((error: unknown) =>
        deps.logger.warn('could not request an early round', { jobId, error: String(error) }),
      );
    return json(waiting ? 200 : 202, { job: jobView(updated) });
  }
  return json(409, { error: 'Conflict', message: `job ${jobId} kept changing; try again` });
};

/**
 * The cluster as one tenant sees it: every host, but only its own jobs counted — from the summary the round writes
 * (one item read, whatever the length of the queue), as of `jobsAsOf`.
 */
const cluster = async (deps: ApiDeps, tenant: string) => {
  const summaries = new TenantSummaryRepository(deps.clients.dynamodb, deps.state.tableName);
  const [hosts, mine, state] = await Promise.all([
    deps.hosts.listByStates(['pending', 'active', 'draining']),
    summaries.read(tenant),
    deps.state.loadState(),
  ]);
  const views = hosts.items.map(hostView);
  return json(200, {
    round: state.state.round,
    ...(state.state.lastRoundAt !== undefined
      ? { lastRoundAt: new Date(state.state.lastRoundAt * 1000).toISOString() }
      : {}),
    hosts: views,
    gpus: views.reduce((n, h) => n + (h.state === 'active' ? h.gpus : 0), 0),
    busyGpus: views.reduce((n, h) => n + h.busyGpus, 0),
    jobs: mine?.jobs ?? {},
    gpusInUse: mine?.gpus ?? 0,
    ...(mine ? { jobsAsOf: new Date(mine.asOf * 1000).toISOString() } : {}),
  });
};

/** Errors that mean AWS is throttling us: the caller should retry later, it did nothing wrong. */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'Throttling',
]);

export const isThrottling = (error: unknown): boolean =>
  error instanceof Error &&
  (THROTTLING.has(error.name) ||
    (error as { $retryable?: { throttling?: boolean } }).$retryable?.throttling === true);

/** Seconds a throttled caller is asked to wait. */
export const RETRY_AFTER_SECONDS = 2;

/** 503 with Retry-After for throttling (after the SDK's own retries), so clients back off instead of seeing 500. */
export const throttled = (): APIGatewayProxyResult => ({
  statusCode: 503,
  headers: { 'content-type': 'application/json', 'retry-after': String(RETRY_AFTER_SECONDS) },
  body: JSON.stringify({
    error: 'ServiceUnavailable',
    message: `the service is throttled; retry after ${RETRY_AFTER_SECONDS} s`,
  }),
});
