import type { DeclaredProfile } from '../core/catalog/user-models.ts';

/** Trace formats the importers understand (`--format` values). */
export const TRACE_FORMATS = [
  'philly',
  'tiresias',
  'pollux',
  'gavel',
  'shockwave',
  'helios',
  'alibaba-pai',
  'jobs',
  'gavel-msr',
  'gavel-steps',
  'gavel-poisson',
] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Where a trace came from: an imported file format, or a seeded generator. */
export type TraceKind = TraceFormat | 'generated';

/** One job as the trace records it, times re-based so the first arrival is 0. Times are seconds. */
export interface TraceJob {
  id: string;
  submitTime: number;
  gpus: number;
  /** Seconds of run time as recorded on the trace's own hardware. */
  duration?: number;
  /** Work in Tessera iterations (steps of the job's global batch), when the trace gives it (Tiresias). */
  iterations?: number;
  /**
   * Gavel's and Shockwave's `total_steps`: the job's run time × its throughput-table rate on the reference worker
   * type at its scale factor (Gavel `scheduler/utils.py` `generate_job`). Gavel counts steps summed over the
   * job's workers, so these are not Tessera iterations; `lib/sim` turns them back into the run time.
   */
  referenceSteps?: number;
  /** Catalog-style model id (`resnet50`, `bert-large`) where the trace names one, or a model outside the catalog. */
  model?: string;
  /** A model outside the catalog: the profile the scheduler is told (none = the conservative estimate). */
  profile?: DeclaredProfile;
  /** How such a model really runs in the simulator's executor; default: `profile`, else the estimate. */
  actualProfile?: DeclaredProfile;
  batchSize?: number;
  gpuType?: string;
  tenant?: string;
  priority?: number;
  /** Absolute deadline on the re-based clock. */
  deadline?: number;
  /** Anything else worth keeping: virtual cluster, original timestamp, status, … */
  labels?: Record<string, string>;
}

/** A row left out of a trace, and why. `line` is 1-based as an editor shows it. */
export interface TraceIssue {
  file: string;
  line: number;
  field?: string;
  message: string;
}

export interface Trace {
  name: string;
  format: TraceKind;
  /** File path, or the generator spec, the trace was built from. */
  source: string;
  jobs: TraceJob[];
  issues: TraceIssue[];
  /**
   * GPUs per host of the hardware the run times were recorded on (the source's own convention,
   * lib/traces/reference-hosts.ts); absent = unknown, the simulator's default applies.
   */
  referenceHostGpus?: number;
}

/** A file's text with the name used in messages. */
export interface TraceSource {
  text: string;
  fileName: string;
}

/** The file is not the expected format at all (wrong header, binary, empty, unknown format name). */
export class TraceFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceFormatError';
  }
}

/** `philly-jobs.csv:17: num_gpus: expected a positive integer, got "-2"` */
export const formatIssue = (issue: TraceIssue): string =>
  `${issue.file}:${issue.line}: ${issue.field === undefined ? '' : `${issue.field}: `}${issue.message}`;

export const isTraceFormat = (value: string): value is TraceFormat =>
  (TRACE_FORMATS as readonly string[]).includes(value);

/** Validates a user-supplied `--format` value. */
export const parseTraceFormat = (value: string): TraceFormat => {
  if (isTraceFormat(value)) return value;
  throw new TraceFormatError(`unknown trace format "${value}"; known formats: ${TRACE_FORMATS.join(', ')}`);
};
