/**
 * Verifies a header-signed SigV4 request against the secret of its access key (for vended credentials; the rest
 * of the endpoint accepts any signature). The canonical request is rebuilt from the request as received: the
 * path as sent (S3 does not normalise it), the sorted query, the signed headers, and the payload hash the client
 * declared in `x-amz-content-sha256` (the chunk signatures of a streamed body are not checked).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { signingKey } from './sigv4.ts';

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/;

const uriEncode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ');
};

export interface SignedRequest {
  readonly method: string;
  /** The raw request target: path and query as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** Whether the request's signature is the one `secretAccessKey` gives; false for malformed authorization too. */
export const verifySigV4 = (request: SignedRequest, secretAccessKey: string): boolean => {
  const match = AUTHORIZATION.exec(header(request.headers, 'authorization'));
  if (!match) return false;
  const [, , date, region, service, signedHeaders, signature] = match as unknown as string[];
  const queryAt = request.url.indexOf('?');
  const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
  const query = [...new URLSearchParams(queryAt < 0 ? '' : request.url.slice(queryAt + 1))]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : 1) : ak < bk ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const names = signedHeaders!.split(';');
  const canonical = [
    request.method.toUpperCase(),
    path || '/',
    query,
    names.map((n) => `${n}:${header(request.headers, n)}\n`).join(''),
    signedHeaders,
    header(request.headers, 'x-amz-content-sha256') || createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    header(request.headers, 'x-amz-date'),
    `${date}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonical, 'utf8').digest('hex'),
  ].join('\n');
  const expected = createHmac('sha256', signingKey(secretAccessKey, date!, region!, service!))
    .update(stringToSign, 'utf8')
    .digest();
  return timingSafeEqual(expected, Buffer.from(signature!, 'hex'));
};
