/**
 * `GET /config`: what a client needs to bring code to the cluster — the bucket and key prefix for working
 * directories, the bucket's region, and (only on a local cloud) the S3 endpoint to use instead of AWS's.
 */
import { ENV, type FunctionEnv } from '../../lib/aws/environment.ts';
import { WORKDIR_PREFIX } from '../../lib/protocol/code-source.ts';

export interface ConfigView {
  /** Null when the deployment has no bucket: working directories cannot be uploaded. */
  readonly bucket: string | null;
  readonly workdirPrefix: string;
  readonly region?: string;
  /** Set only where S3 is not AWS's (the local cloud's endpoint). */
  readonly s3Endpoint?: string;
}

export const configView = (env: FunctionEnv<'api'>): ConfigView => ({
  bucket: env[ENV.bucket] ?? null,
  workdirPrefix: WORKDIR_PREFIX,
  ...(env[ENV.region] ? { region: env[ENV.region] } : {}),
  ...(env[ENV.endpoint] ? { s3Endpoint: env[ENV.endpoint] } : {}),
});
