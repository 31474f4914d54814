import type { SimSummary } from '../sim/summary.ts';
import { type PolicyColumn, policyTable, type TimeUnit } from './policy-table.ts';

const COLUMNS: readonly PolicyColumn[] = [
  'policy',
  'jobs',
  'done',
  'avgJct',
  'p50Jct',
  'p95Jct',
  'p99Jct',
  'makespan',
  'avgQueueing',
  'gpuUtilization',
  'migrations',
  'restarts',
  'jctLowerBound',
  'wallSeconds',
];

/**
 * Hours, unless every policy's average JCT is under one: then hours with two decimals would show a trace of
 * minute-long jobs as 0.01 and 0.02, so seconds.
 */
export const simTimeUnit = (summaries: readonly SimSummary[]): TimeUnit =>
  summaries.some((s) => s.avgJct >= 3600) ? 'h' : 's';

/** What the summary table's terse columns mean (printed under it). */
const legend = (unit: TimeUnit): string =>
  [
    `${unit === 'h' ? 'h: hours' : 's: seconds'} of simulated time; done: jobs completed; avg JCT, p50–p99: job completion time (arrival to end) of`,
    'completed jobs; queue: mean wait of completed jobs; util: busy share of all GPU time; migr: migrations;',
    'restarts: resumes from a checkpoint (preemption, resize); LB: mean JCT each job would have alone on its best',
    'allocation (avg JCT ÷ LB is how far from ideal); wall s: real seconds the policy took to simulate.',
  ].join('\n');

/** The per-policy summary `tessera sim` and `--demo` print, and its legend. */
export const simSummaryText = (summaries: readonly SimSummary[]): string => {
  const unit = simTimeUnit(summaries);
  return `${policyTable(summaries, COLUMNS, unit)}\n${legend(unit)}`;
};
