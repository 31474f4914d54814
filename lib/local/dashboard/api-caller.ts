/**
 * How the dashboard server reaches the Tessera API. The browser never holds AWS credentials: it talks to the
 * dashboard server, which calls the API as the user — in-process through the local Lambda runner (the local cloud,
 * tests), or over HTTPS with SigV4-signed requests (a deployed stack; the SDK's signer and default credential chain).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { TesseraClient } from '../../client/index.ts';
import { apiGatewayEvent } from '../runner/lambda-events.ts';
import type { LocalLambdaRunner } from '../runner/local-runner.ts';

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** `/jobs`, `/jobs/<id>`, `/jobs/<id>/logs` or `/cluster`. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

export type ApiCaller = (request: ApiRequest) => Promise<ApiResponse>;

/** API Gateway's resource template for a path, and its path parameters. */
export const resourceOf = (path: string): { resource: string; pathParameters?: Record<string, string> } => {
  const job = /^\/jobs\/([^/]+)(\/logs)?$/.exec(path);
  if (job)
    return {
      resource: job[2] ? '/jobs/{id}/logs' : '/jobs/{id}',
      pathParameters: { id: decodeURIComponent(job[1]!) },
    };
  return { resource: path };
};

/** Calls the real API handler in-process, as API Gateway would after IAM auth of `principal`. */
export const runnerApiCaller =
  (runner: LocalLambdaRunner, principal: string): ApiCaller =>
  async (request) => {
    const result = await runner.invoke<APIGatewayProxyResult>(
      'api',
      apiGatewayEvent({
        method: request.method,
        ...resourceOf(request.path),
        ...(request.query ? { query: { ...request.query } } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        principal,
      }),
    );
    return { status: result.statusCode, body: JSON.parse(result.body) };
  };

/** Calls a deployed API through the typed client (SigV4 with the SDK's signer and the default credential chain). */
export const clientApiCaller =
  (client: TesseraClient): ApiCaller =>
  async (request) => {
    const { status, body } = await client.exchange(request.method, request.path.replace(/^\//, ''), {
      ...(request.query ? { query: { ...request.query } } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    return { status, body };
  };
