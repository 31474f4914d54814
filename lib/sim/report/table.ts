import type { SimSummary } from '../summary.ts';
import { count, hours, percent, plainHours, seconds } from './format.ts';
import { element, textElement } from './markup.ts';

/** The summary tables: one row per policy, every `SimSummary` field in human units. */

export interface Column {
  readonly header: string;
  /** Longer explanation, shown as the header's tooltip. */
  readonly help: string;
  readonly cell: (s: SimSummary) => string;
}

const column = (header: string, help: string, cell: (s: SimSummary) => string): Column => ({
  header,
  help,
  cell,
});

export const JOB_COLUMNS: readonly Column[] = [
  column('Jobs', 'jobs in the trace window', (s) => count(s.jobs)),
  column('Completed', 'jobs that finished', (s) => count(s.completed)),
  column('Unschedulable', 'jobs no allocation could ever fit, or that stalled', (s) =>
    count(s.unschedulable),
  ),
  column('Unfinished', 'jobs still running or waiting at the horizon', (s) => count(s.unfinished)),
  column('Avg JCT (h)', 'mean job completion time of completed jobs', (s) => hours(s.avgJct)),
  column('p50 JCT (h)', 'median job completion time', (s) => hours(s.p50Jct)),
  column('p95 JCT (h)', '95th percentile job completion time', (s) => hours(s.p95Jct)),
  column('p99 JCT (h)', '99th percentile job completion time', (s) => hours(s.p99Jct)),
  column(
    'JCT lower bound (h)',
    'mean JCT of the same jobs each alone on its best allocation from its arrival',
    (s) => hours(s.jctLowerBound),
  ),
  column('Avg queueing (h)', 'mean time without GPUs between arrival and completion', (s) =>
    hours(s.avgQueueing),
  ),
  column('p95 queueing (h)', '95th percentile queueing time', (s) => hours(s.p95Queueing)),
  column('p99 queueing (h)', '99th percentile queueing time', (s) => hours(s.p99Queueing)),
];

export const CLUSTER_COLUMNS: readonly Column[] = [
  column('Makespan (h)', 'first arrival to last completion', (s) => hours(s.makespan)),
  column('GPU utilisation', 'busy GPU-time over total GPU-time of the simulated span', (s) =>
    percent(s.gpuUtilization),
  ),
  column('GPU-hours', 'GPU time allocated to jobs', (s) => plainHours(s.gpuHours)),
  column('Migrations', 'moves of a running job to other GPUs', (s) => count(s.migrations)),
  column('Restarts', 'preemptions and resumptions', (s) => count(s.restarts)),
  column('Exposed comm. (h)', 'communication time not hidden behind computation, summed over jobs', (s) =>
    hours(s.commLatency),
  ),
  column('Rounds', 'scheduling rounds run', (s) => count(s.rounds)),
  column('Simulated (h)', 'simulated time from the first arrival to the end', (s) =>
    hours(s.simulatedSeconds),
  ),
  column('Wall time (s)', 'real time the simulation took', (s) => seconds(s.wallSeconds)),
];

/** Columns for the trace and cluster, needed only when some run differs from what the header says. */
export const identityColumns = (
  summaries: readonly SimSummary[],
  header: { readonly trace: string; readonly cluster: string },
): Column[] => [
  ...(summaries.some((s) => s.cluster !== header.cluster)
    ? [column('Cluster', 'cluster of this run', (s: SimSummary) => s.cluster)]
    : []),
  ...(summaries.some((s) => s.trace !== header.trace)
    ? [column('Trace', 'trace of this run', (s: SimSummary) => s.trace)]
    : []),
];

export const renderTable = (
  caption: string,
  columns: readonly Column[],
  summaries: readonly SimSummary[],
): string => {
  const head = element(
    'tr',
    {},
    textElement('th', { scope: 'col' }, 'Policy'),
    ...columns.map((c) => textElement('th', { scope: 'col', title: c.help }, c.header)),
  );
  const rows = summaries.map((s) =>
    element(
      'tr',
      {},
      textElement('th', { scope: 'row' }, s.policy),
      ...columns.map((c) => textElement('td', {}, c.cell(s))),
    ),
  );
  return element(
    'div',
    { class: 'table-scroll' },
    element(
      'table',
      {},
      textElement('caption', {}, caption),
      element('thead', {}, head),
      element('tbody', {}, ...rows),
    ),
  );
};
