import type { IssueLog } from './issues.ts';
import { sourceHostGpus } from './reference-hosts.ts';
import type { Trace, TraceIssue, TraceJob, TraceKind } from './types.ts';

/** A parsed job with its absolute submit time and the line that defined it (the sort tie-breaker). */
export interface ParsedJob {
  job: TraceJob;
  line: number;
}

/** Sorts by submit time (ties by line) and re-bases times so the first arrival is 0. */
export const rebaseJobs = (parsed: readonly ParsedJob[]): TraceJob[] => {
  const sorted = [...parsed].sort((a, b) => a.job.submitTime - b.job.submitTime || a.line - b.line);
  const origin = sorted[0]?.job.submitTime ?? 0;
  return sorted.map(({ job }) => shiftJob(job, origin));
};

/** The job with its submit time and deadline moved `origin` seconds earlier. */
export const shiftJob = (job: TraceJob, origin: number): TraceJob => {
  const shifted: TraceJob = { ...job, submitTime: job.submitTime - origin };
  if (job.deadline !== undefined) shifted.deadline = job.deadline - origin;
  return shifted;
};

/** A trace from parsed rows; an imported format carries its source's GPUs per host, a generator passes its own. */
export const buildTrace = (
  name: string,
  format: TraceKind,
  source: string,
  parsed: readonly ParsedJob[],
  issues: readonly TraceIssue[],
  referenceHostGpus: number | undefined = sourceHostGpus(format),
): Trace => ({
  name,
  format,
  source,
  jobs: rebaseJobs(parsed),
  issues: [...issues],
  ...(referenceHostGpus !== undefined ? { referenceHostGpus } : {}),
});

/** Rejects a second row with an id already seen in the same file. */
export class IdRegistry {
  readonly #firstLine = new Map<string, number>();

  constructor(private readonly issues: IssueLog) {}

  /** True when `id` is new; otherwise logs an issue for `line` naming the first line with that id. */
  claim(id: string, line: number, field: string): boolean {
    const first = this.#firstLine.get(id);
    if (first !== undefined) {
      this.issues.add(line, field, `duplicate job id (first used at line ${first})`, id);
      return false;
    }
    this.#firstLine.set(id, line);
    return true;
  }
}

/** The trace name for a file: its base name without directories or extension. */
export const traceNameOf = (fileName: string): string => {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
};
