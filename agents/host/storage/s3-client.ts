/**
 * The agent's one S3 client factory: checkpoint staging (and later logs and working directories) get their
 * client here, so credentials and endpoint handling live in one place. With an endpoint (the local endpoint,
 * LocalStack) requests are path-style, which is what those servers serve.
 */
import { S3Client } from '@aws-sdk/client-s3';

export interface S3ClientOptions {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export function createS3Client(options: S3ClientOptions = {}): S3Client {
  return new S3Client({
    maxAttempts: 5,
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  });
}
