/**
 * Holds S3 requests signed with vended credentials (local STS sessions) to their session policy, as AWS does:
 * the signature must verify with the session's secret, the token must be the session's, the session must not
 * have expired, and every permission the request needs (action, resource, `s3:prefix`) must be allowed by the
 * session policy. Requests signed with any other key pass through unchanged (the rest of the endpoint accepts
 * any credentials). Path-style addressing only, as the endpoint's S3 serves.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type AccessRequest, policyAllows } from './iam-policy.ts';
import { verifySigV4 } from './sigv4-verify.ts';
import type { LocalSts } from './sts.ts';

export interface S3Request {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** Object keys of a multi-object delete (`POST /<bucket>?delete`), read from its body. */
  readonly deleteKeys?: readonly string[];
}

export type S3Verdict =
  | { readonly allowed: true }
  | { readonly allowed: false; status: number; code: string; message: string };

const ALLOWED: S3Verdict = { allowed: true };
const deny = (status: number, code: string, message: string): S3Verdict => ({
  allowed: false,
  status,
  code,
  message,
});

const objectArn = (bucket: string, key: string) => `arn:aws:s3:::${bucket}/${key}`;

/** The permissions an S3 REST request needs (path-style), as AWS documents them per operation. */
export const s3Permissions = (request: S3Request): AccessRequest[] => {
  const queryAt = request.url.indexOf('?');
  const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
  const query = new URLSearchParams(queryAt < 0 ? '' : request.url.slice(queryAt + 1));
  const method = request.method.toUpperCase();
  const slash = path.indexOf('/', 1);
  const bucket = decodeURIComponent(slash < 0 ? path.slice(1) : path.slice(1, slash));
  const key = slash < 0 ? '' : decodeURIComponent(path.slice(slash + 1));
  if (bucket === '') return [{ action: 's3:ListAllMyBuckets', resource: '*' }];
  const bucketArn = `arn:aws:s3:::${bucket}`;
  if (key === '') {
    if (method === 'POST' && query.has('delete'))
      return (request.deleteKeys ?? []).map((k) => ({
        action: 's3:DeleteObject',
        resource: objectArn(bucket, k),
      }));
    if ((method === 'GET' || method === 'HEAD') && query.has('uploads'))
      return [{ action: 's3:ListBucketMultipartUploads', resource: bucketArn }];
    if (method === 'GET' && query.has('location'))
      return [{ action: 's3:GetBucketLocation', resource: bucketArn }];
    if (method === 'GET' || method === 'HEAD') {
      const prefix = query.get('prefix');
      return [
        {
          action: 's3:ListBucket',
          resource: bucketArn,
          ...(prefix !== null ? { context: { 's3:prefix': prefix } } : {}),
        },
      ];
    }
    if (method === 'PUT') return [{ action: 's3:CreateBucket', resource: bucketArn }];
    if (method === 'DELETE') return [{ action: 's3:DeleteBucket', resource: bucketArn }];
    return [{ action: `s3:Unknown${method}Bucket`, resource: bucketArn }];
  }
  const resource = objectArn(bucket, key);
  if (method === 'GET' && query.has('uploadId')) return [{ action: 's3:ListMultipartUploadParts', resource }];
  if (method === 'GET' || method === 'HEAD') return [{ action: 's3:GetObject', resource }];
  if (method === 'PUT' || method === 'POST') {
    const needs: AccessRequest[] = [{ action: 's3:PutObject', resource }];
    const source = request.headers['x-amz-copy-source'];
    if (typeof source === 'string') {
      const [from] = decodeURIComponent(source.replace(/^\//, '')).split('?');
      const at = from!.indexOf('/');
      needs.push({ action: 's3:GetObject', resource: objectArn(from!.slice(0, at), from!.slice(at + 1)) });
    }
    return needs;
  }
  if (method === 'DELETE')
    return [{ action: query.has('uploadId') ? 's3:AbortMultipartUpload' : 's3:DeleteObject', resource }];
  return [{ action: `s3:Unknown${method}Object`, resource }];
};

const CREDENTIAL = /Credential=([^/,\s]+)\//;
const HOST_KEY_PREFIX = 'LOCALHOST';

export interface S3AuthorizationOptions {
  /**
   * Hold local host credentials (`LOCALHOST…`) to what a GPU host's instance role may do on S3: read the agent
   * bundle under `agent/`, nothing of job data (lib/infra/fleet.ts). Off by default: local agents that do not read
   * vended credentials yet reach job data with their own key.
   */
  readonly hostRoleRules?: boolean;
}

/** The S3 rights of a GPU host's instance role (lib/infra/fleet.ts), for `hostRoleRules`. */
const HOST_ROLE_POLICY = {
  Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::*/agent/*' }],
};

const hostRoleVerdict = (request: S3Request, accessKeyId: string): S3Verdict => {
  const refused = s3Permissions(request).find((n) => !policyAllows(HOST_ROLE_POLICY, n));
  return refused
    ? deny(
        403,
        'AccessDenied',
        `${accessKeyId} (a host's instance role) is not authorized to perform: ${refused.action} on resource: "${refused.resource}"`,
      )
    : ALLOWED;
};

/** The verdict for a request, or undefined when it is not signed with vended credentials. */
export const authorizeS3 = (
  request: S3Request,
  sts: LocalSts,
  options: S3AuthorizationOptions = {},
): S3Verdict | undefined => {
  const authorization = request.headers.authorization;
  const queryKey = new URLSearchParams(request.url.split('?')[1] ?? '')
    .get('X-Amz-Credential')
    ?.split('/')[0];
  const accessKeyId = (authorization ? CREDENTIAL.exec(authorization)?.[1] : undefined) ?? queryKey;
  const session = accessKeyId ? sts.session(accessKeyId) : undefined;
  if (!session && options.hostRoleRules && accessKeyId?.startsWith(HOST_KEY_PREFIX))
    return hostRoleVerdict(request, accessKeyId);
  if (!session) return undefined;
  if (!authorization)
    return deny(
      403,
      'AccessDenied',
      'presigned URLs with vended credentials are not served by the local endpoint',
    );
  if (request.headers['x-amz-security-token'] !== session.sessionToken)
    return deny(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
  if (sts.now() >= session.expiresAtMs) return deny(400, 'ExpiredToken', 'The provided token has expired.');
  if (!verifySigV4(request, session.secretAccessKey))
    return deny(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    );
  if (session.policy === undefined) return ALLOWED;
  const needs = s3Permissions(request);
  const refused =
    needs.length === 0
      ? { action: 's3:DeleteObject', resource: '(no keys)' }
      : needs.find((n) => !policyAllows(session.policy!, n));
  if (!refused) return ALLOWED;
  return deny(
    403,
    'AccessDenied',
    `User: arn:aws:sts::assumed-role/${session.sessionName} is not authorized to perform: ${refused.action} on resource: "${refused.resource}" because no session policy allows the ${refused.action} action`,
  );
};

const DELETE_KEY = /<Key>([^<]*)<\/Key>/g;
const unescapeXml = (text: string) =>
  text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!,
  );

export interface GuardedS3Request {
  readonly verdict: S3Verdict | undefined;
  /** The body, when it had to be read to decide (a multi-object delete); forward this instead of the stream. */
  readonly body?: Buffer;
}

/** Decides on an incoming S3 request; reads the body only for a multi-object delete signed with vended keys. */
export const guardS3Request = async (
  req: { method?: string; url?: string; headers: IncomingHttpHeaders } & AsyncIterable<Buffer>,
  sts: LocalSts,
  options: S3AuthorizationOptions = {},
): Promise<GuardedS3Request> => {
  const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
  const first = authorizeS3(request, sts, options);
  if (!first || !first.allowed || request.method !== 'POST' || !/[?&]delete(=|&|$)/.test(request.url))
    return { verdict: first };
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const deleteKeys = [...body.toString('utf8').matchAll(DELETE_KEY)].map((m) => unescapeXml(m[1]!));
  return { verdict: authorizeS3({ ...request, deleteKeys }, sts, options), body };
};
