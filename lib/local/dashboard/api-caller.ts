/**
 * How the dashboard server reaches the Tessera API. The browser never holds AWS credentials: it talks to the
 * dashboard server, which calls the API as the user — in-process through the local Lambda runner (the local cloud,
 * tests), or over HTTPS with SigV4-signed requests (a deployed stack; the SDK's signer and default credential chain).
 * TODO(lead): swap `signedApiCaller` for lib/client once it lands; it is the same call.
 */
import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { apiGatewayEvent } from '../runner/lambda-events.ts';
import type { LocalLambdaRunner } from '../runner/local-runner.ts';

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** `/jobs`, `/jobs/<id>` or `/cluster`. */
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
  const job = /^\/jobs\/([^/]+)$/.exec(path);
  if (job) return { resource: '/jobs/{id}', pathParameters: { id: decodeURIComponent(job[1]!) } };
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

/** Node's crypto as the signer's hash: sha256, or HMAC-sha256 with a secret. */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : data instanceof ArrayBuffer
      ? new Uint8Array(data)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

class Sha256 {
  private readonly hash;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

/** Calls a deployed API (its invoke URL, e.g. `https://abc.execute-api.us-east-1.amazonaws.com/prod`) with SigV4. */
export const signedApiCaller = (apiUrl: string, region: string): ApiCaller => {
  const base = new URL(apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  const signer = new SignatureV4({
    service: 'execute-api',
    region,
    credentials: defaultProvider(),
    sha256: Sha256,
  });
  return async (request) => {
    const url = new URL(request.path.replace(/^\//, ''), base);
    for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { host: url.host };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const signed = await signer.sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    const response = await fetch(url, {
      method: request.method,
      headers: signed.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: 'BadResponse', message: text.slice(0, 500) };
    }
    return { status: response.status, body };
  };
};
