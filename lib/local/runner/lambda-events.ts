/**
 * Lambda events and contexts as AWS builds them, for invoking the real handlers in-process: SQS batches, API
 * Gateway (REST, IAM-authorised) proxy requests, EventBridge events.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, Context, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

export const lambdaContext = (
  fn: { name: string; arn: string; memoryMiB: number },
  timeoutMs: number,
): Context => {
  const deadline = Date.now() + timeoutMs;
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: fn.arn,
    memoryLimitInMB: String(fn.memoryMiB),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: `local/${requestId}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
};

const messageAttributes = (message: Message): SQSMessageAttributes =>
  Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined
          ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
          : {}),
        stringListValues: [],
        binaryListValues: [],
      },
    ]),
  );

export const sqsRecord = (message: Message, queueArn: string, region: string): SQSRecord => {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? randomUUID(),
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(a.MessageGroupId ? { MessageGroupId: a.MessageGroupId } : {}),
      ...(a.MessageDeduplicationId ? { MessageDeduplicationId: a.MessageDeduplicationId } : {}),
      ...(a.SequenceNumber ? { SequenceNumber: a.SequenceNumber } : {}),
    },
    messageAttributes: messageAttributes(message),
    md5OfBody:
      message.MD5OfBody ??
      createHash('md5')
        .update(message.Body ?? '')
        .digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
};

export const sqsEvent = (messages: readonly Message[], queueArn: string, region: string): SQSEvent => ({
  Records: messages.map((m) => sqsRecord(m, queueArn, region)),
});

export interface ApiRequest {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** The resource template, e.g. `/jobs/{id}`. */
  readonly resource: string;
  readonly pathParameters?: Record<string, string>;
  readonly query?: Record<string, string>;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /** The IAM principal id API Gateway would authenticate (`requestContext.identity.user`). */
  readonly principal: string;
  readonly accountId?: string;
}

/** An API Gateway REST proxy event for an IAM-authorised request. */
export const apiGatewayEvent = (request: ApiRequest): APIGatewayProxyEvent => {
  let path = request.resource;
  for (const [name, value] of Object.entries(request.pathParameters ?? {}))
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  const account = request.accountId ?? '000000000000';
  const headers = {
    ...(request.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...request.headers,
  };
  return {
    resource: request.resource,
    path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: request.query ?? null,
    multiValueQueryStringParameters: request.query
      ? Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, [v]]))
      : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      accountId: account,
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: `/v1${path}`,
      stage: 'v1',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: request.resource,
      identity: {
        accessKey: 'ASIALOCAL',
        accountId: account,
        apiKey: null,
        apiKeyId: null,
        caller: request.principal,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '127.0.0.1',
        user: request.principal,
        userAgent: 'tessera-local',
        userArn: `arn:aws:iam::${account}:user/${request.principal}`,
      },
    },
  };
};

/** An EventBridge "Scheduled Event", for invoking a scheduled function without an event bus. */
export const scheduledEvent = (ruleArn: string, region: string, accountId: string, at = Date.now()) => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: accountId,
  time: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  region,
  resources: [ruleArn],
  detail: {},
});
