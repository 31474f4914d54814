import { join } from 'node:path';
import type { GavelJobType, GavelPair, GavelRecord, GavelThroughputTable } from '../core/perf/tables.ts';
import { DataFileError } from './errors.ts';
import { readDataFile } from './files.ts';

export const GAVEL_THROUGHPUTS_FILE = join('gavel', 'simulation_throughputs.json');

const UNCONSOLIDATED = '_unconsolidated';
/** Python's repr of a (job type, scale factor) tuple: `('ResNet-50 (batch size 64)', 4)`. */
const KEY = /^\('(.+)', (\d+)\)$/;
const BATCH = /^(.*?) \(batch size (\d+)\)$/;

/** Parses one Gavel key; throws a DataFileError naming the file and the key. */
export const parseGavelKey = (key: string, file: string): GavelJobType => {
  const match = KEY.exec(key);
  if (!match) throw new DataFileError(file, `key "${key}" is not a ('<job type>', <scale>) tuple`);
  const [, jobType = '', scaleText = ''] = match;
  const scale = Number(scaleText);
  if (!(scale >= 1)) throw new DataFileError(file, `key "${key}": scale factor must be ≥ 1`);
  const batch = BATCH.exec(jobType);
  if (!batch) return { model: jobType, scale };
  const batchSize = Number(batch[2]);
  if (!(batchSize >= 1)) throw new DataFileError(file, `key "${key}": batch size must be ≥ 1`);
  return { model: batch[1] ?? '', batchSize, scale };
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const throughput = (v: unknown, file: string, where: string): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new DataFileError(file, `${where}: expected a throughput ≥ 0, got ${JSON.stringify(v)}`);
  }
  return v;
};

/** Parses the text of Gavel's `simulation_throughputs.json` into typed records. */
export const parseGavelThroughputs = (text: string, file: string): GavelThroughputTable => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DataFileError(file, `invalid JSON (${(error as Error).message})`);
  }
  if (!isRecord(json)) throw new DataFileError(file, 'expected an object keyed by worker type');
  const records: GavelRecord[] = [];
  for (const [section, jobs] of Object.entries(json)) {
    const consolidated = !section.endsWith(UNCONSOLIDATED);
    const workerType = consolidated ? section : section.slice(0, -UNCONSOLIDATED.length);
    if (!isRecord(jobs)) throw new DataFileError(file, `"${section}": expected an object keyed by job type`);
    for (const [key, entry] of Object.entries(jobs)) {
      const where = `"${section}" → "${key}"`;
      const job = parseGavelKey(key, file);
      if (!isRecord(entry)) throw new DataFileError(file, `${where}: expected an object`);
      const pairs: GavelPair[] = [];
      for (const [partnerKey, value] of Object.entries(entry)) {
        if (partnerKey === 'null') continue;
        const pairWhere = `${where} → "${partnerKey}"`;
        if (!Array.isArray(value) || value.length !== 2) {
          throw new DataFileError(file, `${pairWhere}: expected [self, partner] throughputs`);
        }
        pairs.push({
          partner: parseGavelKey(partnerKey, file),
          throughputs: [throughput(value[0], file, pairWhere), throughput(value[1], file, pairWhere)],
        });
      }
      records.push({
        workerType,
        consolidated,
        job,
        isolated: throughput(entry.null, file, `${where} → "null"`),
        pairs,
      });
    }
  }
  return { records };
};

/** Reads `gavel/simulation_throughputs.json` under the data directory. */
export const loadGavelThroughputs = (dataDir: string): GavelThroughputTable => {
  const file = join(dataDir, GAVEL_THROUGHPUTS_FILE);
  return parseGavelThroughputs(readDataFile(file), file);
};
