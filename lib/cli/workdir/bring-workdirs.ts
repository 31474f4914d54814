/**
 * `tessera submit`'s step between reading a job file and submitting it: every job whose `workdir` is a local
 * directory gets it packed, uploaded once per distinct directory (a sweep's jobs share one upload), and its
 * `workdir` rewritten to the object's `s3://…/workdirs/<sha256>.tar.gz` URI. A `workdir` already given as an
 * `s3://` URI is left as it is.
 */
import { isAbsolute, resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import type { TesseraClient } from '../../client/index.ts';
import { checkWorkdir, mib, packWorkdir } from './pack-workdir.ts';
import { type UploadProgress, uploadWorkdir } from './upload-workdir.ts';
import { WorkdirError } from './workdir-error.ts';

type Doc = Record<string, unknown>;

/** Archives from this size on report their upload progress. */
const PROGRESS_FROM_BYTES = 8 * 1024 * 1024;

export const isLocalWorkdir = (value: unknown): value is string =>
  typeof value === 'string' && !value.startsWith('s3://');

export interface BringOptions {
  /** Relative `workdir` paths are resolved from here: the job file's directory (stdin: the current one). */
  readonly baseDir: string;
  /** One line of progress (stderr); omitted = silent. */
  readonly report?: (line: string) => void;
  /** For tests: an S3 client instead of one built from the API's `GET /config`. */
  readonly s3?: { client: S3Client; bucket: string };
}

export const bringWorkdirs = async <J extends { document: Doc }>(
  jobs: readonly J[],
  client: Pick<TesseraClient, 'config' | 'credentials' | 'region'>,
  options: BringOptions,
): Promise<J[]> => {
  const local = [...new Set(jobs.map((j) => j.document.workdir).filter(isLocalWorkdir))];
  if (local.length === 0) return [...jobs];
  const pathOf = (given: string) => (isAbsolute(given) ? given : resolve(options.baseDir, given));
  for (const given of local) checkWorkdir(pathOf(given), given); // before asking the API anything
  const target = options.s3 ?? (await s3For(client));
  const uris = new Map<string, string>();
  try {
    for (const given of local) {
      const archive = await packWorkdir(pathOf(given), { shownAs: given });
      try {
        const total = archive.bytes;
        const progress =
          options.report && total >= PROGRESS_FROM_BYTES
            ? (p: UploadProgress) => options.report!(`  workdir ${given}: ${mib(p.sent)} of ${mib(total)}`)
            : undefined;
        const result = await uploadWorkdir(target.client, target.bucket, archive, progress);
        options.report?.(
          `workdir ${given}: ${archive.files} files, ${mib(archive.bytes)} packed, ${result.uploaded ? 'uploaded to' : 'already at'} ${result.uri}`,
        );
        uris.set(given, result.uri);
      } finally {
        archive.dispose();
      }
    }
  } finally {
    if (!options.s3) target.client.destroy();
  }
  return jobs.map((job) => {
    const given = job.document.workdir;
    return isLocalWorkdir(given) ? { ...job, document: { ...job.document, workdir: uris.get(given)! } } : job;
  });
};

/** The cluster bucket from `GET /config`, reached with the same credentials the API calls are signed with. */
const s3For = async (
  client: Pick<TesseraClient, 'config' | 'credentials' | 'region'>,
): Promise<{ client: S3Client; bucket: string }> => {
  const config = await client.config();
  if (!config.bucket)
    throw new WorkdirError(
      'the cluster has no bucket for working directories (GET /config names none); give workdir as an s3:// URI or deploy a stack with its bucket',
    );
  return {
    bucket: config.bucket,
    client: new S3Client({
      region: config.region ?? client.region,
      credentials: client.credentials,
      // Checksums only where S3 requires them: S3-compatible local servers do not all speak the newer ones;
      // the agent checks the archive's sha256 against its key anyway.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(config.s3Endpoint ? { endpoint: config.s3Endpoint, forcePathStyle: true } : {}),
    }),
  };
};
