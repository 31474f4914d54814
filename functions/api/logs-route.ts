/**
 * `GET /jobs/{id}/logs?rank=N&cursor=…&limit=…`: one page of a job's worker output from the log store. Only the
 * job's tenant may read it (anyone else gets the same 404 as for a job that does not exist); a malformed rank or
 * limit, or a cursor that is not one this route returned for this job, is a 400 naming the parameter.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { InvalidLogCursorError } from '../../lib/aws/logs/log-cursor.ts';
import type { LogChunkStore } from '../../lib/aws/logs/log-store.ts';
import { readLogPage } from '../../lib/aws/logs/read-log-page.ts';
import type { JobSpecIssue } from '../../lib/protocol/job-spec.ts';
import type { ApiDeps } from './routes.ts';
import { badRequest, json } from './routes.ts';
import { logPageView } from './views.ts';

export const DEFAULT_LOG_LINES = 1000;
export const MAX_LOG_LINES = 5000;
const MAX_RANK = 99_999;

export const getLogs = async (
  deps: ApiDeps & { readonly logs: LogChunkStore | null },
  event: APIGatewayProxyEvent,
  jobId: string,
  tenant: string,
): Promise<APIGatewayProxyResult> => {
  const query = event.queryStringParameters ?? {};
  const issues: JobSpecIssue[] = [];
  const limitText = query.limit ?? String(DEFAULT_LOG_LINES);
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_LOG_LINES)
    issues.push({ field: 'limit', rule: `must be an integer from 1 to ${MAX_LOG_LINES}` });
  const rank = query.rank === undefined ? undefined : Number(query.rank);
  if (query.rank !== undefined && (!/^\d+$/.test(query.rank) || rank! > MAX_RANK))
    issues.push({ field: 'rank', rule: `must be an integer from 0 to ${MAX_RANK}` });
  if (issues.length > 0) return badRequest(issues);
  const job = await deps.jobs.get(jobId);
  if (!job || job.tenant !== tenant)
    return json(404, { error: 'NotFound', message: `job ${jobId} not found` });
  if (!deps.logs)
    return json(501, { error: 'NotImplemented', message: 'this deployment has no log store configured' });
  try {
    const page = await readLogPage(deps.logs, {
      jobId,
      limit,
      ...(rank !== undefined ? { rank } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    return json(200, logPageView(jobId, job.status, page));
  } catch (error) {
    if (error instanceof InvalidLogCursorError)
      return badRequest([
        { field: 'cursor', rule: 'must be a cursor returned by a previous page of this job' },
      ]);
    throw error;
  }
};
