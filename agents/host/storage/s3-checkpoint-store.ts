/**
 * Checkpoint step directories in S3, as the trainers lay them out on disk: `<root>/step-<S>/<files>`, complete
 * only once `<root>/step-<S>/COMPLETE` exists. Uploads put the marker LAST and downloads fetch it last (into a
 * temporary directory renamed into place), so on either side a step with COMPLETE is whole.
 */
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { keyPrefix, parseS3Uri } from './s3-uri.ts';

export const COMPLETE_MARKER = 'COMPLETE';
const STEP_DIR = /^step-(\d+)$/;

export const stepDirName = (step: number): string => `step-${step}`;

export interface TransferStats {
  files: number;
  bytes: number;
}

export interface S3CheckpointStoreOptions {
  /** Files larger than this go up in parts of this size (multipart upload). */
  partSizeBytes?: number;
  /** Files (and parts of one file) in flight at once. */
  concurrency?: number;
}

export class S3CheckpointStore {
  private readonly partSize: number;
  private readonly concurrency: number;

  constructor(
    private readonly client: S3Client,
    options: S3CheckpointStoreOptions = {},
  ) {
    this.partSize = Math.max(5 * 1024 * 1024, options.partSizeBytes ?? 16 * 1024 * 1024);
    this.concurrency = options.concurrency ?? 4;
  }

  /** Newest step of `rootUri` whose COMPLETE marker exists, or null when there is none. */
  async newestComplete(rootUri: string): Promise<number | null> {
    const location = parseS3Uri(rootUri);
    const base = keyPrefix(location);
    const steps: number[] = [];
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: location.bucket, Prefix: base, Delimiter: '/' },
    );
    for await (const page of pages) {
      for (const { Prefix } of page.CommonPrefixes ?? []) {
        const match = STEP_DIR.exec((Prefix ?? '').slice(base.length).replace(/\/$/, ''));
        if (match) steps.push(Number(match[1]));
      }
    }
    for (const step of steps.sort((a, b) => b - a)) {
      if (await this.exists(location.bucket, `${base}${stepDirName(step)}/${COMPLETE_MARKER}`)) return step;
    }
    return null;
  }

  /** Uploads `localStepDir` as step `step` of `rootUri`: every file, then COMPLETE. */
  async upload(rootUri: string, step: number, localStepDir: string): Promise<TransferStats> {
    const location = parseS3Uri(rootUri);
    const base = `${keyPrefix(location)}${stepDirName(step)}/`;
    const files = listFiles(localStepDir);
    if (!files.includes(COMPLETE_MARKER)) throw new Error(`${localStepDir} has no ${COMPLETE_MARKER} marker`);
    const payload = files.filter((file) => file !== COMPLETE_MARKER);
    let bytes = 0;
    const put = async (file: string) => {
      const path = join(localStepDir, file);
      bytes += statSync(path).size;
      await new Upload({
        client: this.client,
        params: { Bucket: location.bucket, Key: `${base}${file}`, Body: createReadStream(path) },
        partSize: this.partSize,
        queueSize: this.concurrency,
      }).done();
    };
    await inBatches(payload, this.concurrency, put);
    await put(COMPLETE_MARKER); // last: only now is the step complete in S3
    return { files: files.length, bytes };
  }

  /** Downloads step `step` of `rootUri` to `localStepDir` (replacing whatever incomplete copy is there). */
  async download(rootUri: string, step: number, localStepDir: string): Promise<TransferStats> {
    const location = parseS3Uri(rootUri);
    const base = `${keyPrefix(location)}${stepDirName(step)}/`;
    const keys: string[] = [];
    for await (const page of paginateListObjectsV2(
      { client: this.client },
      { Bucket: location.bucket, Prefix: base },
    )) {
      for (const { Key } of page.Contents ?? []) if (Key) keys.push(Key.slice(base.length));
    }
    if (!keys.includes(COMPLETE_MARKER))
      throw new Error(`${rootUri}/${stepDirName(step)} is not complete in S3`);
    const temp = join(dirname(localStepDir), `.download-${stepDirName(step)}-${process.pid}`);
    rmSync(temp, { recursive: true, force: true });
    let bytes = 0;
    const get = async (file: string) => {
      if (file === '' || file.split('/').includes('..')) return; // never write outside the step directory
      const target = join(temp, ...file.split('/'));
      mkdirSync(dirname(target), { recursive: true });
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: location.bucket, Key: `${base}${file}` }),
      );
      await pipeline(object.Body as Readable, createWriteStream(target));
      bytes += statSync(target).size;
    };
    try {
      await inBatches(
        keys.filter((key) => key !== COMPLETE_MARKER),
        this.concurrency,
        get,
      );
      await get(COMPLETE_MARKER);
      rmSync(localStepDir, { recursive: true, force: true });
      renameSync(temp, localStepDir);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    return { files: keys.length, bytes };
  }

  private async exists(bucket: string, key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
        return false;
      throw error;
    }
  }
}

/** Files under `dir`, as `/`-separated paths relative to it. */
function listFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return found.sort();
}

async function inBatches<T>(
  items: readonly T[],
  width: number,
  body: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await body(items[next++]!);
  });
  await Promise.all(lanes);
}
