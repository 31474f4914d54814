import type { SimSummary } from '../summary.ts';
import { count, hours, percent, plainHours, seconds } from './format.ts';
import { element, textElement } from './markup.ts';

/** The summary tables: one row per policy, every `SimSummary` field in human units. */

export interface Column {
  readonly header: string;
  /** Longer explanation, shown as the header's tooltip. */
  readonly help: string;
  readonly cell: (s: SimSummary) => string;
  /** Neighbouring columns with the same group share a header above theirs, so their own headers can be short. */
  readonly group?: string;
  /** Text rather than a number: aligned left. */
  readonly text?: boolean;
}

const column = (header: string, help: string, cell: (s: SimSummary) => string, group?: string): Column => ({
  header,
  help,
  cell,
  ...(group !== undefined ? { group } : {}),
});

const JOBS = 'Jobs';
const JCT = 'Completion time (h)';
const QUEUEING = 'Queueing (h)';

export const JOB_COLUMNS: readonly Column[] = [
  column('Total', 'jobs in the trace window', (s) => count(s.jobs), JOBS),
  column('Completed', 'jobs that finished', (s) => count(s.completed), JOBS),
  column(
    'Unschedulable',
    'jobs no allocation could ever fit, or that stalled',
    (s) => count(s.unschedulable),
    JOBS,
  ),
  column('Unfinished', 'jobs still running or waiting at the horizon', (s) => count(s.unfinished), JOBS),
  column('Avg', 'mean job completion time of completed jobs', (s) => hours(s.avgJct), JCT),
  column('p50', 'median job completion time', (s) => hours(s.p50Jct), JCT),
  column('p95', '95th percentile job completion time', (s) => hours(s.p95Jct), JCT),
  column('p99', '99th percentile job completion time', (s) => hours(s.p99Jct), JCT),
  column(
    'Lower bound',
    'mean JCT of the same jobs, each alone on its best allocation from its arrival',
    (s) => hours(s.jctLowerBound),
    JCT,
  ),
  column(
    'Avg',
    'mean time without GPUs between arrival and completion',
    (s) => hours(s.avgQueueing),
    QUEUEING,
  ),
  column('p95', '95th percentile queueing time', (s) => hours(s.p95Queueing), QUEUEING),
  column('p99', '99th percentile queueing time', (s) => hours(s.p99Queueing), QUEUEING),
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
    ? [{ ...column('Cluster', 'cluster of this run', (s: SimSummary) => s.cluster), text: true }]
    : []),
  ...(summaries.some((s) => s.trace !== header.trace)
    ? [{ ...column('Trace', 'trace of this run', (s: SimSummary) => s.trace), text: true }]
    : []),
];

interface Span {
  readonly group: string | undefined;
  readonly columns: Column[];
}

/** Runs of neighbouring columns that share a group (or stand alone). */
const spans = (columns: readonly Column[]): Span[] => {
  const out: Span[] = [];
  for (const c of columns) {
    const previous = out[out.length - 1];
    if (previous && c.group !== undefined && previous.group === c.group) previous.columns.push(c);
    else out.push({ group: c.group, columns: [c] });
  }
  return out;
};

const columnHeader = (c: Column, rowspan?: number): string =>
  textElement('th', { scope: 'col', title: c.help, rowspan, class: c.text ? 'text' : undefined }, c.header);

/** A table with one row per run; a second header row appears when some columns are grouped. */
export const renderTable = (
  caption: string,
  columns: readonly Column[],
  summaries: readonly SimSummary[],
): string => {
  const grouped = columns.some((c) => c.group !== undefined);
  const policyHeader = textElement('th', { scope: 'col', rowspan: grouped ? 2 : undefined }, 'Policy');
  const head = grouped
    ? [
        element(
          'tr',
          {},
          policyHeader,
          ...spans(columns).map((s) =>
            s.group === undefined
              ? columnHeader(s.columns[0]!, 2)
              : textElement('th', { scope: 'colgroup', colspan: s.columns.length, class: 'group' }, s.group),
          ),
        ),
        element('tr', {}, ...columns.filter((c) => c.group !== undefined).map((c) => columnHeader(c))),
      ]
    : [element('tr', {}, policyHeader, ...columns.map((c) => columnHeader(c)))];
  const rows = summaries.map((s) =>
    element(
      'tr',
      {},
      textElement('th', { scope: 'row' }, s.policy),
      ...columns.map((c) => textElement('td', { class: c.text ? 'text' : undefined }, c.cell(s))),
    ),
  );
  return element(
    'div',
    { class: 'table-scroll' },
    element(
      'table',
      {},
      textElement('caption', {}, caption),
      element('thead', {}, ...head),
      element('tbody', {}, ...rows),
    ),
  );
};
