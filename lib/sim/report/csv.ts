import type { PolicyRun } from '../run.ts';
import type { JobRecord } from '../simulator.ts';

type Cell = string | number | undefined;

/** Columns of `jobs.csv`, in order; times are seconds, as in `JobRecord`. */
export const CSV_COLUMNS = [
  'policy',
  'id',
  'model',
  'gpus',
  'submitTime',
  'firstStart',
  'finishTime',
  'outcome',
  'reason',
  'jct',
  'queueing',
  'runningSeconds',
  'gpuSeconds',
  'commSeconds',
  'cost',
  'restarts',
  'migrations',
  'jctLowerBound',
] as const;

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, or starts or ends with whitespace
 * (which some readers would trim); quotes inside are doubled. Numbers keep millisecond precision, which is far
 * below the simulator's round interval; a missing value is empty, and infinities are written `inf`/`-inf`, which
 * pandas and numpy read back as floats.
 */
export const csvField = (value: Cell): string => {
  if (value === undefined) return '';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(Math.round(value * 1000) / 1000);
  }
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
};

const jobRow = (policy: string, job: JobRecord): Cell[] => [
  policy,
  job.id,
  job.model,
  job.gpus,
  job.submitTime,
  job.firstStart,
  job.finishTime,
  job.outcome,
  job.reason,
  job.jct,
  job.queueing,
  job.runningSeconds,
  job.gpuSeconds,
  job.commSeconds,
  job.cost,
  job.restarts,
  job.migrations,
  job.jctLowerBound,
];

/** Per-job CSV: a header line, then one line per (policy, job) in run order and the simulator's job order. */
export const renderCsv = (runs: readonly PolicyRun[]): string => {
  const lines = [CSV_COLUMNS.join(',')];
  for (const run of runs) {
    for (const job of run.result.jobs) lines.push(jobRow(run.result.policy, job).map(csvField).join(','));
  }
  return `${lines.join('\n')}\n`;
};
