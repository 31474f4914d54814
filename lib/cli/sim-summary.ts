import type { JobRecord } from '../sim/simulator.ts';
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

/** How many jobs `notCompletedText` names before it says how many more there are. */
const NOT_COMPLETED_SHOWN = 10;

/**
 * The jobs a policy did not complete, with why (unschedulable and its reason, stalled, unfinished at the horizon), so
 * that "done" one short of "jobs" is explained: one line per job and outcome, naming the policies it applies to
 * ("every policy" when all). Empty when every policy completed every job.
 */
export const notCompletedText = (
  runs: readonly { readonly policy: string; readonly jobs: readonly JobRecord[] }[],
): string => {
  const lines = new Map<string, { job: JobRecord; policies: string[] }>();
  for (const run of runs)
    for (const job of run.jobs) {
      if (job.outcome === 'completed') continue;
      const key = `${job.id}\u0000${job.outcome}\u0000${job.reason ?? ''}`;
      const line = lines.get(key) ?? { job, policies: [] };
      line.policies.push(run.policy);
      lines.set(key, line);
    }
  if (lines.size === 0) return '';
  const all = [...lines.values()];
  const shown = all.slice(0, NOT_COMPLETED_SHOWN).map(({ job, policies }) => {
    const who = policies.length === runs.length && runs.length > 1 ? 'every policy' : policies.join(', ');
    const why = `${job.outcome}${job.reason ? `: ${job.reason}` : ''}`;
    return `  ${job.id} (${job.model}, ${job.gpus} GPU${job.gpus === 1 ? '' : 's'}): ${why} (${who})`;
  });
  const more = all.length > NOT_COMPLETED_SHOWN ? [`  … and ${all.length - NOT_COMPLETED_SHOWN} more`] : [];
  return ['jobs not completed:', ...shown, ...more].join('\n');
};
