/**
 * The agent's one S3 client. Against a local endpoint (the local cloud, LocalStack) buckets are addressed by path,
 * since `<bucket>.localhost` names do not resolve.
 */
import { S3Client } from '@aws-sdk/client-s3';

export interface S3ClientOptions {
  region?: string;
  endpoint?: string;
}

export function createS3Client(options: S3ClientOptions): S3Client {
  return new S3Client({
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
  });
}
