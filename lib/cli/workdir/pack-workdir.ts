/**
 * Packs a local working directory into a deterministic tar.gz and names it by its sha256: the same tree gives
 * the same bytes (sorted entries, fixed mtime, no owner, normalised modes), so a sweep's jobs — and a resubmit
 * of unchanged code — share one object in the bucket.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { create } from 'tar';
import { listWorkdir } from './list-files.ts';
import { WorkdirError } from './workdir-error.ts';

/** Largest working directory (sum of file sizes): code, not data sets — those belong in S3 the job reads. */
export const MAX_WORKDIR_BYTES = 1024 * 1024 * 1024;
/** Every entry's mtime in the archive (the epoch start would be read as "no time" by some tools). */
const FIXED_MTIME = new Date('2000-01-01T00:00:00Z');

export interface PackedWorkdir {
  /** The archive on local disk (in a temporary directory; `dispose` removes it). */
  readonly path: string;
  readonly sha256: string;
  /** Archive size. */
  readonly bytes: number;
  /** Sum of the packed files' sizes, and their number. */
  readonly contentBytes: number;
  readonly files: number;
  dispose(): void;
}

export const packWorkdir = async (
  root: string,
  options: { maxBytes?: number; shownAs?: string } = {},
): Promise<PackedWorkdir> => {
  const shown = options.shownAs ?? root;
  checkWorkdir(root, shown);
  const listing = listWorkdir(root);
  const maxBytes = options.maxBytes ?? MAX_WORKDIR_BYTES;
  if (listing.bytes > maxBytes)
    throw new WorkdirError(
      `workdir ${shown}: ${mib(listing.bytes)} in ${listing.files} files is more than the ${mib(maxBytes)} allowed; keep data sets in S3 and let the job read them`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'tessera-workdir-'));
  const path = join(dir, 'workdir.tar.gz');
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const archive = create(
      { cwd: root, gzip: true, portable: true, mtime: FIXED_MTIME, noDirRecurse: true },
      [...listing.entries],
    );
    archive.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      bytes += chunk.length;
    });
    await pipeline(archive, createWriteStream(path));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new WorkdirError(`workdir ${shown}: could not pack it: ${(error as Error).message}`);
  }
  return {
    path,
    sha256: hash.digest('hex'),
    bytes,
    contentBytes: listing.bytes,
    files: listing.files,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/** Throws a WorkdirError unless `root` is a directory (`shown` is how the user wrote it). */
export const checkWorkdir = (root: string, shown: string): void => {
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw new WorkdirError(`workdir ${shown}: no such directory (${root})`);
  }
  if (!isDirectory) throw new WorkdirError(`workdir ${shown}: not a directory (${root})`);
};

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
