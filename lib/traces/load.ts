import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildBuiltinTrace,
  isBuiltinTraceName,
  type ModelChoice,
  needsPhillyTrace,
  parseBuiltinTraceName,
} from './generators/index.ts';
import { readTrace } from './read.ts';
import type { Trace } from './types.ts';

/** The project root (this file is `<root>/lib/traces/load.ts`). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Path of the shared Philly list: `$TESSERA_DATA_DIR/philly/philly-jobs.csv` when that variable is
 * set, else `<repo>/../shared/data/philly/philly-jobs.csv`.
 */
export const phillyTracePath = (env: Readonly<Record<string, string | undefined>> = process.env): string => {
  const dataDir = env.TESSERA_DATA_DIR;
  return dataDir !== undefined && dataDir !== ''
    ? join(dataDir, 'philly', 'philly-jobs.csv')
    : join(REPO_ROOT, '..', 'shared', 'data', 'philly', 'philly-jobs.csv');
};

export interface LoadTraceOptions {
  /** Format of a trace file (ignored for builtins). */
  format?: string;
  /** Seed of generated builtins. Default 0. */
  seed?: number;
  /** Models of generated builtins; default Gavel's job types. */
  models?: readonly ModelChoice[];
  /** Largest GPU demand drawn when sizes come from Philly. */
  maxGpus?: number;
  /** Environment to resolve `TESSERA_DATA_DIR` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The `--trace <file|builtin>` resolver: a builtin name (see `BUILTIN_GRAMMAR`) is generated or
 * read from the shared data; anything else is read as a trace file.
 */
export const loadTrace = (nameOrPath: string, options: LoadTraceOptions = {}): Trace => {
  if (!isBuiltinTraceName(nameOrPath))
    return readTrace(nameOrPath, options.format === undefined ? {} : { format: options.format });
  const spec = parseBuiltinTraceName(nameOrPath);
  const philly = needsPhillyTrace(spec)
    ? readTrace(phillyTracePath(options.env), { format: 'philly' })
    : undefined;
  return buildBuiltinTrace(spec, {
    seed: options.seed ?? 0,
    ...(options.models && { models: options.models }),
    ...(philly && { philly }),
    ...(options.maxGpus !== undefined && { maxGpus: options.maxGpus }),
  });
};
