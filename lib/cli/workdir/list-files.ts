/**
 * What goes into a working-directory archive: every directory, regular file and symbolic link under the root,
 * in byte order of their paths so the same tree always packs the same way. `.git` is left out (history is not
 * code to run); sockets, FIFOs and devices are skipped (tar would block on a FIFO).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const EXCLUDED_NAMES: ReadonlySet<string> = new Set(['.git']);

export interface WorkdirListing {
  /** Paths relative to the root, `/`-separated, parents before children. */
  readonly entries: readonly string[];
  /** Sum of the regular files' sizes. */
  readonly bytes: number;
  readonly files: number;
}

export const listWorkdir = (root: string): WorkdirListing => {
  const entries: string[] = [];
  let bytes = 0;
  let files = 0;
  const visit = (relative: string) => {
    const names = readdirSync(relative ? join(root, relative) : root).sort((a, b) =>
      Buffer.compare(Buffer.from(a), Buffer.from(b)),
    );
    for (const name of names) {
      if (EXCLUDED_NAMES.has(name)) continue;
      const path = relative ? `${relative}/${name}` : name;
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) {
        entries.push(path);
        visit(path);
      } else if (stat.isFile()) {
        entries.push(path);
        bytes += stat.size;
        files += 1;
      } else if (stat.isSymbolicLink()) {
        entries.push(path);
      }
    }
  };
  visit('');
  return { entries, bytes, files };
};
