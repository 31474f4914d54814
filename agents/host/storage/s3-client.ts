/**
 * The agent's one S3 client factory. A job's client signs with the job-data credentials vended to this host for
 * that job (looked up on every request, so credentials the control plane renews are picked up without a new
 * client); without vended credentials (a host outside a deployed stack) it uses the default provider chain.
 * Path-style addressing when an endpoint is set (the local endpoint serves buckets at `/<bucket>/`).
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { HostDataCredentials } from './data-credentials.ts';

export interface S3ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  /** Vended job-data credentials: required to reach a job's data on a deployed stack. */
  readonly dataCredentials?: HostDataCredentials;
}

export class NoDataCredentialsError extends Error {
  override readonly name = 'NoDataCredentialsError';
}

/** An S3 client for one job's data. */
export const createS3Client = (options: S3ClientOptions, jobId?: string): S3Client => {
  const store = options.dataCredentials;
  return new S3Client({
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(store && jobId !== undefined
      ? {
          credentials: async () => {
            const set = store.forJob(jobId);
            if (!set)
              throw new NoDataCredentialsError(`no job-data credentials for job ${jobId} on this host yet`);
            return {
              accessKeyId: set.accessKeyId,
              secretAccessKey: set.secretAccessKey,
              sessionToken: set.sessionToken,
              expiration: new Date(set.expiresAt * 1000),
            };
          },
        }
      : {}),
  });
};
