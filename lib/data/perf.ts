import { type CompositePerfModel, createCompositePerfModel } from '../core/perf/composite.ts';
import type { PerfParameters } from '../core/perf/parameters.ts';
import type { PerfCatalog } from '../core/perf/query.ts';
import type { MeasuredTables } from '../core/perf/tables.ts';
import { loadBloxNormSpeed } from './blox.ts';
import { dataDirExists, resolveDataDir } from './data-dir.ts';
import { loadGavelThroughputs } from './gavel.ts';
import { loadPolluxTable } from './pollux.ts';

/** Reads Gavel's throughputs, Pollux's placements and Blox's co-location speeds under `dataDir`. */
export const loadMeasuredTables = (dataDir: string): MeasuredTables => ({
  gavel: loadGavelThroughputs(dataDir),
  pollux: loadPolluxTable(dataDir),
  blox: loadBloxNormSpeed(dataDir),
});

export interface LoadPerfModelOptions {
  /** Defaults to `resolveDataDir()` ($TESSERA_DATA_DIR, else ../shared/data next to the repository). */
  readonly dataDir?: string;
  readonly parameters?: PerfParameters;
  readonly catalog?: PerfCatalog;
  /** Where warnings go (missing data directory, rows naming models the catalog lacks); default console.warn. */
  readonly onWarning?: (message: string) => void;
}

// Parsing the 1.2 MB Gavel table takes a moment; simulations build many models from the same files.
const tableCache = new Map<string, MeasuredTables>();

/**
 * The scheduler's default performance model: measured tables where they cover a query, the calibrated
 * analytic model elsewhere. Without a data directory it is the analytic model alone, with a warning.
 * Files that exist but are malformed, or are missing from an existing directory, throw a DataFileError.
 */
export const loadDefaultPerfModel = (options: LoadPerfModelOptions = {}): CompositePerfModel => {
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const dataDir = options.dataDir ?? resolveDataDir();
  let tables: MeasuredTables = {};
  if (dataDirExists(dataDir)) {
    tables = tableCache.get(dataDir) ?? loadMeasuredTables(dataDir);
    tableCache.set(dataDir, tables);
  } else {
    warn(
      `performance data directory ${dataDir} not found: using the analytic model only (set TESSERA_DATA_DIR)`,
    );
  }
  const model = createCompositePerfModel(tables, {
    ...(options.parameters ? { parameters: options.parameters } : {}),
    ...(options.catalog ? { catalog: options.catalog } : {}),
  });
  const skipped = [
    ...(model.measured?.gavel?.unknownModels ?? []).map((m) => `gavel model "${m}"`),
    ...(model.measured?.gavel?.unknownWorkerTypes ?? []).map((t) => `gavel worker type "${t}"`),
    ...(model.measured?.pollux?.unknownApplications ?? []).map((a) => `pollux application "${a}"`),
    ...(model.measured?.blox?.unknownModels ?? []).map((m) => `blox model "${m}"`),
  ];
  if (skipped.length > 0)
    warn(`performance data in ${dataDir}: skipped rows of ${skipped.join(', ')} (not in the catalog)`);
  return model;
};
