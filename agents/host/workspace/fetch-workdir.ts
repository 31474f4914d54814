/**
 * Downloads a working-directory archive into the host's cache, named by its sha256 and checked against it, so
 * a sweep's jobs (or a job's restarts) on one host download it once. Written to a `.part` file and renamed, so
 * a crash mid-download never leaves a cached archive that is cut short.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parseWorkdirUri } from '../../../lib/protocol/code-source.ts';

export class WorkdirCache {
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly dir: string,
    private readonly s3: S3Client,
  ) {}

  /** The local path of the archive `uri` names, downloading it first when it is not cached. */
  archive(uri: string): Promise<string> {
    const source = parseWorkdirUri(uri);
    if (!source) return Promise.reject(new Error(`${uri} is not an s3://…/workdirs/<sha256>.tar.gz URI`));
    const path = join(this.dir, `${source.sha256}.tar.gz`);
    if (existsSync(path)) return Promise.resolve(path);
    const running = this.inFlight.get(source.sha256);
    if (running) return running;
    const download = this.download(source, path).finally(() => this.inFlight.delete(source.sha256));
    this.inFlight.set(source.sha256, download);
    return download;
  }

  private async download(
    source: { bucket: string; key: string; sha256: string },
    path: string,
  ): Promise<string> {
    mkdirSync(this.dir, { recursive: true });
    const part = `${path}.${process.pid}.part`;
    const hash = createHash('sha256');
    try {
      const object = await this.s3.send(new GetObjectCommand({ Bucket: source.bucket, Key: source.key }));
      if (!object.Body) throw new Error('empty response body');
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          done(null, chunk);
        },
      });
      await pipeline(object.Body as NodeJS.ReadableStream, hashing, createWriteStream(part));
      const digest = hash.digest('hex');
      if (digest !== source.sha256)
        throw new Error(
          `downloaded archive has sha256 ${digest}, not the ${source.sha256} its name promises`,
        );
      renameSync(part, path);
      return path;
    } catch (error) {
      rmSync(part, { force: true });
      throw new Error(`could not download s3://${source.bucket}/${source.key}: ${describe(error)}`);
    }
  }
}

const describe = (error: unknown): string => {
  const name = (error as Error).name;
  const message = (error as Error).message;
  return name && name !== 'Error' && !message.startsWith(name) ? `${name}: ${message}` : message;
};
