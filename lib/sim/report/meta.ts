import { gpusByType, totalGpus } from '../../core/model/cluster.ts';
import type { Workload } from '../run.ts';

/** What the report's header says about the workload; plain data so renderers need no `Workload`. */
export interface ReportMeta {
  readonly trace: string;
  readonly cluster: string;
  readonly totalGpus: number;
  /** [GPU type, count] in descending count, then name. */
  readonly gpusByType: readonly (readonly [string, number])[];
  readonly jobs: number;
  /** Trace rows and jobs that were left out when the workload was built. */
  readonly skippedRows: number;
  /** Who wrote the report, e.g. `tessera sim`. */
  readonly generator: string;
  /** When, as the caller wants it shown; renderers never read the clock so that their output is deterministic. */
  readonly generatedAt?: string;
}

export const reportMeta = (workload: Workload, generatedAt?: string): ReportMeta => ({
  trace: workload.traceName,
  cluster: workload.cluster.name,
  totalGpus: totalGpus(workload.cluster),
  gpusByType: [...gpusByType(workload.cluster)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
  jobs: workload.jobs.length,
  skippedRows: workload.traceIssues.length + workload.workloadIssues.length,
  generator: 'tessera sim',
  ...(generatedAt !== undefined ? { generatedAt } : {}),
});
