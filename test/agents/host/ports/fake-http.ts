/**
 * A fake HTTP handler for AWS SDK v3 clients: requests go through the real serializers, signing and
 * middleware, then are captured here instead of reaching the network; responses are canned.
 */
import { Readable } from 'node:stream';

export interface CapturedRequest {
  method: string;
  hostname: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface CannedResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body: string;
}

export function fakeHttpHandler(respond: (request: CapturedRequest) => CannedResponse) {
  const requests: CapturedRequest[] = [];
  const handler = {
    async handle(request: CapturedRequest) {
      requests.push(request);
      const canned = respond(request);
      return {
        response: {
          statusCode: canned.statusCode,
          reason: undefined,
          headers: canned.headers ?? {},
          body: Readable.from([Buffer.from(canned.body)]),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
  return { requests, handler };
}

/** The request body as text (the SDK may hand over a string or bytes). */
export function bodyText(request: CapturedRequest): string {
  const body = request.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new Error(`unexpected request body type ${typeof body}`);
}
