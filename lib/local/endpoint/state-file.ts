import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A JSON snapshot on disk, written atomically (temp file + rename) so a crash mid-write
 * leaves the previous snapshot intact. Used for the shims' state when `dataDir` is set.
 */
export class StateFile<T> {
  constructor(readonly path: string) {}

  load(): T | undefined {
    if (!existsSync(this.path)) return undefined;
    const text = readFileSync(this.path, 'utf8');
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(
        `${this.path}: not valid JSON (${(error as Error).message}); delete it to start afresh`,
      );
    }
  }

  save(value: T): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const temp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(value, null, 1)}\n`);
    renameSync(temp, this.path);
  }
}
