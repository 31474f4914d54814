import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Environment variable naming the shared data directory. */
export const DATA_DIR_ENV = 'TESSERA_DATA_DIR';

/**
 * The shared data directory: `$TESSERA_DATA_DIR`, else `<repository root>/../shared/data`, found from this
 * module's own location (so it does not depend on the working directory).
 */
export const resolveDataDir = (env: Readonly<Record<string, string | undefined>> = process.env): string => {
  const fromEnv = env[DATA_DIR_ENV]?.trim();
  if (fromEnv) return fromEnv;
  // lib/data/data-dir.ts → repository root is two levels up; shared/ sits next to the repository.
  return fileURLToPath(new URL('../../../shared/data', import.meta.url));
};

/** Whether the data directory exists. */
export const dataDirExists = (dir: string): boolean => existsSync(dir);
