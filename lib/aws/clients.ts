/**
 * The AWS SDK clients of one Lambda function (or of a test / the local runner). With `AWS_ENDPOINT_URL` set
 * every client talks to that endpoint (LocalStack or the local endpoint); SQS then also ignores the host in
 * queue URLs, which emulators fill with names that do not resolve offline.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV, type Env } from './environment.ts';

export interface AwsClients {
  readonly dynamodb: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly ec2: EC2Client;
  readonly s3: S3Client;
}

export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export const clientOptionsFromEnv = (env: Env): ClientOptions => ({
  ...(env[ENV.region] ? { region: env[ENV.region] } : {}),
  ...(env[ENV.endpoint] ? { endpoint: env[ENV.endpoint] } : {}),
});

/**
 * Throttling is retried by the SDK with jittered exponential back-off; more attempts than the default 3, so a
 * burst of throttled calls slows a round down instead of failing it (adaptive mode also rate-limits the client).
 */
export const RETRY = { maxAttempts: 8, retryMode: 'adaptive' } as const;

export const createAwsClients = (options: ClientOptions = {}): AwsClients => {
  const common = {
    ...RETRY,
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  return {
    dynamodb: DynamoDBDocumentClient.from(new DynamoDBClient(common), {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    }),
    sqs: new SQSClient({ ...common, ...(options.endpoint ? { useQueueUrlAsEndpoint: false } : {}) }),
    ec2: new EC2Client(common),
    // Path-style against a local endpoint: `<bucket>.localhost` names do not resolve.
    s3: new S3Client({ ...common, ...(options.endpoint ? { forcePathStyle: true } : {}) }),
  };
};
