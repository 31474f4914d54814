import { createHash, createHmac } from 'node:crypto';

/**
 * AWS Signature Version 4 for a single request (header auth), pure given `now`. Used by the
 * small EventBridge client (there is no @aws-sdk/client-eventbridge in this project); requests
 * it signs are accepted by AWS, LocalStack and this endpoint alike.
 */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
}

const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept, everything else %XX). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function canonicalRequest(request: SignableRequest, signedHeaderNames: readonly string[]): string {
  const path = request.url.pathname
    .split('/')
    .map((segment) => uriEncode(decodeURIComponent(segment)))
    .join('/');
  const query = [...request.url.searchParams]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : 1) : ak < bk ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const lower = new Map(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const headers = signedHeaderNames
    .map((name) => `${name}:${(lower.get(name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  return [
    request.method.toUpperCase(),
    path || '/',
    query,
    headers,
    signedHeaderNames.join(';'),
    sha256Hex(request.body),
  ].join('\n');
}

export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
}

/** Returns the request's headers plus Host, X-Amz-Date, optional X-Amz-Security-Token and Authorization. */
export function signRequest(
  request: SignableRequest,
  options: { credentials: Credentials; region: string; service: string; now: Date },
): Record<string, string> {
  const stamp = amzDate(options.now);
  const date = stamp.slice(0, 8);
  const headers: Record<string, string> = { ...request.headers, host: request.url.host, 'x-amz-date': stamp };
  if (options.credentials.sessionToken) headers['x-amz-security-token'] = options.credentials.sessionToken;
  const signedHeaderNames = Object.keys(headers)
    .map((name) => name.toLowerCase())
    .sort();
  const scope = `${date}/${options.region}/${options.service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    stamp,
    scope,
    sha256Hex(canonicalRequest({ ...request, headers }, signedHeaderNames)),
  ].join('\n');
  const signature = createHmac(
    'sha256',
    signingKey(options.credentials.secretAccessKey, date, options.region, options.service),
  )
    .update(stringToSign, 'utf8')
    .digest('hex');
  headers.authorization =
    `AWS4-HMAC-SHA256 Credential=${options.credentials.accessKeyId}/${scope}, ` +
    `SignedHeaders=${signedHeaderNames.join(';')}, Signature=${signature}`;
  return headers;
}
