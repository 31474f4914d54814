/**
 * Files the round function's bundle needs besides its JavaScript, copied by NodejsFunction's afterBundling hook:
 *
 * - the measured performance tables (Gavel throughputs, Pollux placements, Blox co-location, ~1.6 MB) that
 *   `loadDefaultPerfModel` reads, into `data/`, with `TESSERA_DATA_DIR` pointing there. If the shared data
 *   directory is missing at synth time (a clone without it), nothing is copied and the round falls back to the
 *   analytic model, logging a warning on every cold start;
 * - `highs.wasm`, the LP solver some policies use, which the bundled `highs` loads from the bundle's directory.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Where the bundle's data directory is inside the Lambda environment. */
export const LAMBDA_DATA_DIR = '/var/task/data';

/** The parts of the shared data the performance model reads (not the traces). */
export const PERF_DATA_ENTRIES = ['gavel', 'pollux', 'blox', 'NOTICE.md'] as const;

const quote = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;

/** The solver's WebAssembly binary, if the package is installed. */
export const highsWasmPath = (): string | undefined => {
  try {
    return createRequire(import.meta.url).resolve('highs/runtime');
  } catch {
    return undefined;
  }
};

/** Shell commands for the round function's afterBundling hook. */
export const roundBundleCommands = (dataDir: string | undefined, outputDir: string): string[] => {
  const commands: string[] = [];
  const wasm = highsWasmPath();
  if (wasm) commands.push(`cp ${quote(wasm)} ${quote(outputDir)}/`);
  if (!dataDir || !existsSync(dataDir)) return commands;
  const present = PERF_DATA_ENTRIES.filter((entry) => existsSync(join(dataDir, entry)));
  if (present.length === 0) return commands;
  return [
    ...commands,
    `mkdir -p ${quote(join(outputDir, 'data'))}`,
    ...present.map((entry) => `cp -R ${quote(join(dataDir, entry))} ${quote(join(outputDir, 'data'))}/`),
  ];
};
