/**
 * The agent's one S3 client factory: every S3 call the agent makes (working directories, checkpoints, logs) goes
 * through a client made here, so credentials and endpoint are decided in one place. With an endpoint (the local
 * cloud, LocalStack) requests are path-style; checksums only where S3 requires them, since S3-compatible servers
 * do not all speak the newer ones (downloads are verified by their own digests).
 */
import { S3Client } from '@aws-sdk/client-s3';

export interface S3ClientSettings {
  readonly region?: string;
  readonly endpoint?: string;
}

export const createS3Client = (settings: S3ClientSettings): S3Client =>
  new S3Client({
    ...(settings.region ? { region: settings.region } : {}),
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
