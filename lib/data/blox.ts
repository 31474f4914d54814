import { join } from 'node:path';
import type { BloxBatch, BloxColocationTable, BloxRecord } from '../core/perf/tables.ts';
import { type CsvRow, readCsv } from './files.ts';

export const BLOX_NORM_SPEED_FILE = join('blox', 'norm_speed.csv');

const COLUMNS = [
  'index',
  'model1',
  'dataset1',
  'gpu_num1',
  'batch_size1',
  'speed1',
  'co_pipeline_rank',
  'pipeline_strategy',
  'model2',
  'dataset2',
  'gpu_num2',
  'batch_size2',
  'speed2',
] as const;

const optional = (row: CsvRow, column: string): string | undefined => {
  const value = row.text(column);
  return value === '' || value === 'NA' ? undefined : value;
};

/** `64` → size 64; `256/16` → global batch 256, micro-batch 16. */
const batch = (row: CsvRow, column: string): BloxBatch => {
  const text = row.text(column);
  const match = /^(\d+)(?:\/(\d+))?$/.exec(text);
  const size = Number(match?.[1]);
  const micro = match?.[2] === undefined ? undefined : Number(match[2]);
  if (!match || !(size > 0) || (micro !== undefined && !(micro > 0))) {
    row.fail(`column "${column}" must be a batch size N or N/M, got "${text}"`);
  }
  return micro === undefined ? { text, size } : { text, size, microBatch: micro };
};

const toRecord = (row: CsvRow): BloxRecord => {
  const model2 = row.text('model2');
  const alone = model2 === 'Empty';
  const record: BloxRecord = {
    index: row.number('index', 'non-negative'),
    model1: row.text('model1'),
    dataset1: row.text('dataset1'),
    gpus1: row.number('gpu_num1', 'positive integer'),
    batch1: batch(row, 'batch_size1'),
    speed1: row.number('speed1', 'non-negative'),
    gpus2: alone ? 0 : row.number('gpu_num2', 'positive integer'),
    speed2: row.number('speed2', 'non-negative'),
    ...definedOnly({
      coPipelineRank: optional(row, 'co_pipeline_rank'),
      pipelineStrategy: optional(row, 'pipeline_strategy'),
      model2: alone ? undefined : model2,
      dataset2: alone ? undefined : optional(row, 'dataset2'),
      batch2: alone ? undefined : batch(row, 'batch_size2'),
    }),
  };
  if (record.model1 === '') row.fail('column "model1" is empty');
  return record;
};

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Reads `blox/norm_speed.csv` under the data directory. */
export const loadBloxNormSpeed = (dataDir: string): BloxColocationTable => ({
  records: readCsv(join(dataDir, BLOX_NORM_SPEED_FILE), COLUMNS).map(toRecord),
});
