/**
 * S3 for the host-agent tests: the local endpoint (real s3rver behind its one port), a bucket, and checkpoint
 * staging for an agent state directory (not a test file itself).
 */
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CheckpointStaging } from '../../../agents/host/storage/checkpoint-staging.ts';
import { S3CheckpointStore } from '../../../agents/host/storage/s3-checkpoint-store.ts';
import { createS3Client } from '../../../agents/host/storage/s3-client.ts';
import { type LocalEndpoint, startLocalEndpoint } from '../../../lib/local/endpoint/index.ts';
import { sharedDynamoDbLocal } from '../../support/shared-dynamodb-local.ts';

export const BUCKET = 'tessera-checkpoints';

export interface LocalS3 {
  endpoint: LocalEndpoint;
  client: S3Client;
  store: S3CheckpointStore;
  /** Staging for one agent (its own state directory = its own host disk). */
  staging(stateDir: string): CheckpointStaging;
  /** `s3://<bucket>/jobs/<jobId>/checkpoints`, the layout the control plane writes. */
  checkpointUri(jobId: string): string;
  stop(): Promise<void>;
}

export async function startLocalS3(): Promise<LocalS3> {
  const endpoint = await startLocalEndpoint({ port: 0, ...sharedDynamoDbLocal() });
  const client = createS3Client({
    endpoint: endpoint.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  const store = new S3CheckpointStore(client, { partSizeBytes: 5 * 1024 * 1024 });
  return {
    endpoint,
    client,
    store,
    staging: (stateDir) => new CheckpointStaging({ store, stateDir, listingTtlMs: 200, retryDelayMs: 100 }),
    checkpointUri: (jobId) => `s3://${BUCKET}/jobs/${jobId}/checkpoints`,
    stop: async () => {
      client.destroy();
      await endpoint.stop();
    },
  };
}
