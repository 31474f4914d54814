import type { SimSummary } from '../sim/summary.ts';
import { formatTable } from './table.ts';

/**
 * One table of per-policy results, shared by `tessera sim`'s summary and `bench flagship`'s per-setup tables so a
 * metric has one header and one format everywhere. Times are shown in hours (`sim`: runs of days) or whole seconds
 * (`bench flagship`: short quick setups); a missing or non-finite value shows as `–`.
 */
export type PolicyColumn =
  | 'policy'
  | 'jobs'
  | 'done'
  | 'doneOfJobs'
  | 'avgJct'
  | 'p50Jct'
  | 'p95Jct'
  | 'p99Jct'
  | 'makespan'
  | 'avgQueueing'
  | 'jctLowerBound'
  | 'gpuUtilization'
  | 'migrations'
  | 'restarts'
  | 'gpuHours'
  | 'cost'
  | 'wallSeconds'
  | 'cpuSeconds';

/** A policy's results: a `SimSummary`, or a bench row carrying its fields (and `cpuSeconds`). */
export type PolicyResult = { readonly policy: string } & Readonly<
  Partial<Record<Exclude<PolicyColumn, 'policy' | 'done' | 'doneOfJobs'> | 'completed', unknown>>
>;

export type TimeUnit = 'h' | 's';

const TIME_HEADERS = {
  avgJct: 'avg JCT',
  p50Jct: 'p50 JCT',
  p95Jct: 'p95 JCT',
  p99Jct: 'p99 JCT',
  makespan: 'makespan',
  avgQueueing: 'queue',
  jctLowerBound: 'LB',
} as const satisfies Partial<Record<keyof SimSummary, string>>;

const isTime = (column: PolicyColumn): column is keyof typeof TIME_HEADERS => column in TIME_HEADERS;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** A number with `digits` decimals, `–` for a missing or non-finite one (also the flagship report's ratios). */
export const fixed = (v: unknown, digits: number): string => (finite(v) ? v.toFixed(digits) : '–');
const whole = (v: unknown): string => (finite(v) ? Math.round(v).toString() : '–');
const count = (v: unknown): string => (finite(v) ? String(v) : '–');
const time = (v: unknown, unit: TimeUnit): string =>
  unit === 'h' ? fixed(finite(v) ? v / 3600 : v, 2) : whole(v);

const OTHER_COLUMNS: Record<
  Exclude<PolicyColumn, keyof typeof TIME_HEADERS>,
  { header: string; cell: (r: PolicyResult) => string }
> = {
  policy: { header: 'policy', cell: (r) => r.policy },
  jobs: { header: 'jobs', cell: (r) => count(r.jobs) },
  done: { header: 'done', cell: (r) => count(r.completed) },
  doneOfJobs: { header: 'done', cell: (r) => `${count(r.completed)}/${count(r.jobs)}` },
  gpuUtilization: {
    header: 'util %',
    cell: (r) => fixed(finite(r.gpuUtilization) ? r.gpuUtilization * 100 : r.gpuUtilization, 1),
  },
  migrations: { header: 'migr', cell: (r) => count(r.migrations) },
  restarts: { header: 'restarts', cell: (r) => count(r.restarts) },
  gpuHours: { header: 'GPU-h', cell: (r) => whole(r.gpuHours) },
  // Zero cost: every GPU type the run used lacks an EC2 price (SimSummary.unpricedGpuHours), not a free run.
  cost: { header: 'cost $', cell: (r) => (finite(r.cost) && r.cost > 0 ? whole(r.cost) : '–') },
  wallSeconds: { header: 'wall s', cell: (r) => fixed(r.wallSeconds, 2) },
  cpuSeconds: { header: 'CPU s', cell: (r) => fixed(r.cpuSeconds, 2) },
};

/** The aligned text table of `results`, one row per policy, with the given columns in order. */
export const policyTable = (
  results: readonly PolicyResult[],
  columns: readonly PolicyColumn[],
  unit: TimeUnit,
): string =>
  formatTable(
    columns.map((c) => (isTime(c) ? `${TIME_HEADERS[c]} ${unit}` : OTHER_COLUMNS[c].header)),
    results.map((r) => columns.map((c) => (isTime(c) ? time(r[c], unit) : OTHER_COLUMNS[c].cell(r)))),
  );
