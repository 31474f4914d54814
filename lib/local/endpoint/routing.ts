import type { IncomingHttpHeaders } from 'node:http';

/**
 * Which AWS service a request on the shared port is for, the way LocalStack decides:
 * the SigV4 credential scope (`Credential=AKID/20240101/us-east-1/<service>/aws4_request`,
 * in the Authorization header or a presigned URL's X-Amz-Credential), else the JSON
 * protocols' `X-Amz-Target` prefix.
 */
export type ServiceName = 'dynamodb' | 'sqs' | 'ec2' | 'events' | 's3';

export interface RouteDecision {
  /** The service as the request names it (may be one we do not serve, e.g. "s3"). */
  service: string;
  via: 'sigv4-header' | 'sigv4-query' | 'x-amz-target';
}

const SCOPE = /Credential=[^/,\s]+\/\d{8}\/[^/,\s]+\/([^/,\s]+)\/aws4_request/;
const QUERY_SCOPE = /^[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request$/;

/** X-Amz-Target prefixes (before the dot) of the JSON-protocol services we serve. */
const TARGET_PREFIXES: Readonly<Record<string, ServiceName>> = {
  DynamoDB_20120810: 'dynamodb',
  DynamoDBStreams_20120810: 'dynamodb',
  AmazonSQS: 'sqs',
  AWSEvents: 'events',
};

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function routeRequest(
  headers: IncomingHttpHeaders,
  url: string | undefined,
): RouteDecision | undefined {
  const authorization = header(headers, 'authorization');
  const scope = authorization ? SCOPE.exec(authorization) : null;
  if (scope) return { service: scope[1]!, via: 'sigv4-header' };

  const queryIndex = url?.indexOf('?') ?? -1;
  if (url && queryIndex >= 0) {
    const credential = new URLSearchParams(url.slice(queryIndex + 1)).get('X-Amz-Credential');
    const match = credential ? QUERY_SCOPE.exec(credential) : null;
    if (match) return { service: match[1]!, via: 'sigv4-query' };
  }

  const target = header(headers, 'x-amz-target');
  if (target) {
    const prefix = target.split('.')[0]!;
    return { service: TARGET_PREFIXES[prefix] ?? prefix, via: 'x-amz-target' };
  }
  return undefined;
}

export function isServedService(service: string): service is ServiceName {
  return (
    service === 'dynamodb' ||
    service === 'sqs' ||
    service === 'ec2' ||
    service === 'events' ||
    service === 's3'
  );
}
