import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
  PolluxApplication,
  PolluxPlacementRow,
  PolluxScalabilityRow,
  PolluxTable,
} from '../core/perf/tables.ts';
import { DataFileError } from './errors.ts';
import { type CsvRow, readCsv } from './files.ts';

export const POLLUX_DIR = 'pollux';
const PLACEMENTS = 'placements.csv';
const SCALABILITY = 'scalability.csv';

const timing = (row: CsvRow): { stepTime: number; syncTime: number } => {
  const stepTime = row.number('step_time', 'positive');
  const syncTime = row.number('sync_time', 'non-negative');
  if (syncTime > stepTime) row.fail(`sync_time ${syncTime} exceeds step_time ${stepTime}`);
  return { stepTime, syncTime };
};

/** Reads one application's `placements.csv` (required) and `scalability.csv` (optional). */
export const loadPolluxApplication = (appDir: string, name: string): PolluxApplication => {
  const placements: PolluxPlacementRow[] = readCsv(join(appDir, PLACEMENTS), [
    'placement',
    'local_bsz',
    'step_time',
    'sync_time',
  ]).map((row) => {
    const placement = row.text('placement');
    if (!/^[1-9]+$/.test(placement))
      row.fail(`placement must be GPUs per node as digits 1–9, got "${placement}"`);
    return { placement, localBatchSize: row.number('local_bsz', 'positive integer'), ...timing(row) };
  });
  const scalabilityFile = join(appDir, SCALABILITY);
  const scalability: PolluxScalabilityRow[] = existsSync(scalabilityFile)
    ? readCsv(scalabilityFile, ['num_nodes', 'num_replicas', 'local_bsz', 'step_time', 'sync_time']).map(
        (row) => {
          const nodes = row.number('num_nodes', 'positive integer');
          const replicas = row.number('num_replicas', 'positive integer');
          if (replicas < nodes) row.fail(`num_replicas ${replicas} is smaller than num_nodes ${nodes}`);
          return {
            nodes,
            replicas,
            localBatchSize: row.number('local_bsz', 'positive integer'),
            ...timing(row),
          };
        },
      )
    : [];
  return { name, placements, scalability };
};

/** Reads every `pollux/<app>/` directory under the data directory. */
export const loadPolluxTable = (dataDir: string): PolluxTable => {
  const root = join(dataDir, POLLUX_DIR);
  let entries: string[];
  try {
    entries = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    throw new DataFileError(root, 'directory not found');
  }
  return { applications: entries.map((name) => loadPolluxApplication(join(root, name), name)) };
};
