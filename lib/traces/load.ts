import { existsSync } from 'node:fs';
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

/** The shared data a builtin trace needs is not there: says which directory and how to get it, not ENOENT. */
export class MissingSharedDataError extends Error {
  override readonly name = 'MissingSharedDataError';
  constructor(readonly path: string) {
    super(
      `the Philly trace ${path} is missing. It is part of the shared data directory (shared/data, beside the repository, as CI and the project workspace lay it out; sources and licences in its NOTICE.md). Put that directory next to the repository, or set TESSERA_DATA_DIR to a copy of it — or use a trace that needs no data, e.g. --trace gavel:200:2.`,
    );
  }
}

/** The shared Philly list, or a MissingSharedDataError saying where it should be and how to get it. */
export const readPhillyTrace = (env: Readonly<Record<string, string | undefined>> = process.env): Trace => {
  const path = phillyTracePath(env);
  if (!existsSync(path)) throw new MissingSharedDataError(path);
  return readTrace(path, { format: 'philly' });
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
  const philly = needsPhillyTrace(spec) ? readPhillyTrace(options.env) : undefined;
  return buildBuiltinTrace(spec, {
    seed: options.seed ?? 0,
    ...(options.models && { models: options.models }),
    ...(philly && { philly }),
    ...(options.maxGpus !== undefined && { maxGpus: options.maxGpus }),
  });
};
