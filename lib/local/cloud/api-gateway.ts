/**
 * A local stand-in for the stack's REST API (API Gateway, IAM auth, stage `v1`): HTTP requests on the routes of
 * lib/infra/api.ts become API Gateway proxy events for the real api handler, run by the local Lambda runner.
 * As with IAM auth, a request without a SigV4 `Authorization` header is refused with 403; the caller's access
 * key id is the IAM principal (the tenant). Signatures are not verified — this is a local development tool.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { readBody, send } from '../endpoint/http-util.ts';
import { type ApiRequest, apiGatewayEvent } from '../runner/lambda-events.ts';
import type { ApiRoute } from './api-routes.ts';

export const API_STAGE = 'v1';

export interface ApiGatewayOptions {
  /** The routes to serve (api-routes.ts reads them from the stack's template). */
  readonly routes: readonly ApiRoute[];
  readonly invoke: (event: ReturnType<typeof apiGatewayEvent>) => Promise<APIGatewayProxyResult>;
  readonly port?: number;
  readonly host?: string;
  /** Extra routes served on the same port outside the stage (the dashboard). */
  readonly fallback?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export interface LocalApiGateway {
  /** Base URL of the API, e.g. `http://127.0.0.1:4600/v1/`. */
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

interface RouteMatch {
  readonly resource: string;
  readonly pathParameters: Record<string, string>;
}

/** The API route a path matches (after the stage prefix), with its path parameters. */
export const matchRoute = (
  routes: readonly ApiRoute[],
  method: string,
  path: string,
): RouteMatch | 'method' | undefined => {
  let pathMatched = false;
  for (const route of routes) {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}/?$`,
    );
    const match = pattern.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (route.method !== method) continue;
    const pathParameters = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1]!)]));
    return { resource: route.path, pathParameters };
  }
  return pathMatched ? 'method' : undefined;
};

/** The access key id of a SigV4 `Authorization` header, or undefined when the request is not signed. */
export const signedAccessKey = (authorization: string | undefined): string | undefined =>
  /^AWS4-HMAC-SHA256\s+Credential=([^/\s,]+)\//.exec(authorization ?? '')?.[1];

const apiGatewayError = (res: ServerResponse, status: number, message: string) =>
  send(res, status, 'application/json', JSON.stringify({ message }));

export const startLocalApiGateway = async (options: ApiGatewayOptions): Promise<LocalApiGateway> => {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) apiGatewayError(res, 502, `Internal server error: ${String(error)}`);
      else res.end();
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const prefix = `/${API_STAGE}`;
    if (!url.pathname.startsWith(`${prefix}/`)) {
      if (options.fallback?.(req, res)) return;
      return apiGatewayError(res, 403, 'Missing Authentication Token');
    }
    const method = req.method ?? 'GET';
    const match = matchRoute(options.routes, method, url.pathname.slice(prefix.length));
    // API Gateway answers unknown resources and methods with 403 "Missing Authentication Token".
    if (match === undefined || match === 'method')
      return apiGatewayError(res, 403, 'Missing Authentication Token');
    const principal = signedAccessKey(req.headers.authorization);
    if (!principal)
      return apiGatewayError(
        res,
        403,
        'Missing Authentication Token: sign requests with SigV4 (service execute-api), e.g. with lib/client',
      );
    const body = await readBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const query = Object.fromEntries(url.searchParams);
    const request: ApiRequest = {
      method: method as ApiRequest['method'],
      resource: match.resource,
      pathParameters: match.pathParameters,
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(body !== '' ? { body } : {}),
      headers,
      principal,
    };
    const result = await options.invoke(apiGatewayEvent(request));
    res.writeHead(result.statusCode, {
      'content-type': 'application/json',
      ...stringHeaders(result.headers),
    });
    res.end(result.body);
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  return {
    url: `http://${host}:${port}/${API_STAGE}/`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const stringHeaders = (headers: APIGatewayProxyResult['headers']): Record<string, string> =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, String(v)]));
