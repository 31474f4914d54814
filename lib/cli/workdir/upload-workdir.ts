/**
 * Uploads a packed working directory to `s3://<bucket>/workdirs/<sha256>.tar.gz` with the caller's credentials,
 * unless that object is already there (same code, e.g. another job of a sweep or a resubmit). Large archives go
 * up in parts with progress reported.
 */
import { createReadStream } from 'node:fs';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { WORKDIR_PREFIX, workdirUri } from '../../protocol/code-source.ts';
import type { PackedWorkdir } from './pack-workdir.ts';
import { WorkdirError } from './workdir-error.ts';

const PART_BYTES = 8 * 1024 * 1024;

export interface UploadProgress {
  readonly sent: number;
  readonly total: number;
}

export interface UploadResult {
  readonly uri: string;
  /** False when the object already existed and nothing was sent. */
  readonly uploaded: boolean;
}

export const uploadWorkdir = async (
  s3: S3Client,
  bucket: string,
  archive: PackedWorkdir,
  onProgress?: (progress: UploadProgress) => void,
): Promise<UploadResult> => {
  const key = `${WORKDIR_PREFIX}${archive.sha256}.tar.gz`;
  const uri = workdirUri(bucket, archive.sha256);
  if (await exists(s3, bucket, key)) return { uri, uploaded: false };
  const upload = new Upload({
    client: s3,
    params: {
      Bucket: bucket,
      Key: key,
      Body: createReadStream(archive.path),
      ContentType: 'application/gzip',
      ContentLength: archive.bytes,
    },
    partSize: PART_BYTES,
    queueSize: 4,
  });
  upload.on('httpUploadProgress', (p) => onProgress?.({ sent: p.loaded ?? 0, total: archive.bytes }));
  try {
    await upload.done();
  } catch (error) {
    throw s3Error(error, `upload to ${uri}`);
  }
  return { uri, uploaded: true };
};

const exists = async (s3: S3Client, bucket: string, key: string): Promise<boolean> => {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (error as Error).name === 'NotFound') return false;
    throw s3Error(error, `look for s3://${bucket}/${key}`);
  }
};

const s3Error = (error: unknown, what: string): WorkdirError => {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as Error).name;
  if (status === 403 || name === 'AccessDenied')
    return new WorkdirError(
      `could not ${what}: access denied — your AWS identity needs s3:GetObject and s3:PutObject on the cluster bucket's ${WORKDIR_PREFIX}* keys (docs/cli.md)`,
    );
  if (name === 'NoSuchBucket')
    return new WorkdirError(`could not ${what}: the cluster bucket does not exist`);
  return new WorkdirError(`could not ${what}: ${name}: ${(error as Error).message}`);
};
