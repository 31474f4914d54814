import { getModelProfile } from '../lib/core/catalog/models.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { TABLE_I_MODELS } from '../lib/core/plugins/dally/table-one.ts';
import type { ReferenceHardware } from '../lib/sim/reference-placement.ts';
import { toJobSpecs } from '../lib/sim/workload.ts';
import type { ModelChoice } from '../lib/traces/generators/models.ts';
import { generateWorkload, type ShapeSampler } from '../lib/traces/generators/workload.ts';
import type { Trace, TraceJob } from '../lib/traces/types.ts';

/** Table I's six models, equally likely, each at its default batch per GPU (the batch Table I is calibrated at). */
export const DALLY_MODEL_MIX: readonly ModelChoice[] = TABLE_I_MODELS.map((model) => ({
  model,
  batchSize: getModelProfile(model).defaultBatchSize,
}));

export interface DallySizes {
  /** Smallest GPU demand drawn: 2 = the distributed jobs Dally schedules (93 % of Philly's jobs use one GPU). */
  readonly minGpus: number;
  /** Largest GPU demand drawn: 64 = one rack of the Dally clusters, so every cluster runs the same jobs. */
  readonly maxGpus: number;
}

export const DALLY_SIZES: DallySizes = { minGpus: 2, maxGpus: 64 };

/** Philly jobs a Dally workload draws from: a duration and a GPU demand in range. */
export const dallyPool = (philly: Trace, sizes: DallySizes = DALLY_SIZES): TraceJob[] => {
  const pool = philly.jobs.filter(
    (j) => j.duration !== undefined && j.duration > 0 && j.gpus >= sizes.minGpus && j.gpus <= sizes.maxGpus,
  );
  if (pool.length === 0)
    throw new RangeError(
      `trace ${philly.name} has no job of ${sizes.minGpus}–${sizes.maxGpus} GPUs with a duration`,
    );
  return pool;
};

/** A uniformly drawn Philly job's (GPUs, duration): size and length stay correlated, as in the trace. */
export const phillySampler =
  (pool: readonly TraceJob[], traceName: string): ShapeSampler =>
  (rng) => {
    const job = pool[rng.int(0, pool.length - 1)]!;
    return { gpus: job.gpus, duration: job.duration!, labels: { sampledFrom: `${traceName}/${job.id}` } };
  };

/** Mean GPU-hours of trace jobs (their recorded durations, consolidated). */
export const meanGpuHours = (jobs: readonly TraceJob[]): number =>
  jobs.reduce((s, j) => s + j.gpus * (j.duration ?? 0), 0) / Math.max(1, jobs.length) / 3600;

export type DallyArrivals = 'batch' | 'poisson';

export interface DallyWorkloadOptions {
  readonly arrivals: DallyArrivals;
  readonly jobs: number;
  readonly seed: number;
  /** Poisson only: offered load, i.e. arrival rate × mean GPU-hours ÷ cluster GPUs (1 = the cluster just keeps up). */
  readonly load: number;
  readonly clusterGpus: number;
  readonly referenceGpuType: string;
  readonly perf: PerfModel;
  /** The executor's model: a duration is what really happened, so it becomes iterations at its rate. */
  readonly truth?: PerfModel;
  readonly sizes?: DallySizes;
}

/**
 * Dally's evaluation workloads (specs/dally.md §6) from Philly instead of the SenseTime trace: Philly GPU demands and
 * durations, Table I models, all arriving at once (batch, makespan) or as a Poisson process (JCT). A duration is how
 * long the job runs consolidated on one machine of `referenceGpuType`; it becomes iterations.
 */
export const dallyWorkload = (
  philly: Trace,
  options: DallyWorkloadOptions,
): { readonly jobs: JobSpec[]; readonly ratePerHour?: number; readonly reference: ReferenceHardware } => {
  const pool = dallyPool(philly, options.sizes);
  const generate = (ratePerHour?: number): Trace =>
    generateWorkload({
      name: `dally-${options.arrivals}:${options.jobs}`,
      jobs: options.jobs,
      arrivals: ratePerHour === undefined ? { kind: 'batch' } : { kind: 'poisson', ratePerHour },
      sampler: phillySampler(pool, philly.name),
      seed: options.seed,
      models: DALLY_MODEL_MIX,
      idPrefix: options.arrivals,
      ...(philly.referenceHostGpus !== undefined ? { referenceHostGpus: philly.referenceHostGpus } : {}),
    });
  let trace = generate();
  let ratePerHour: number | undefined;
  if (options.arrivals === 'poisson') {
    // Sizes and arrivals come from independent random streams: the batch draw has the same jobs, so the rate can be
    // set from this sample's own mean (Philly's tail makes the pool mean a poor guess for a few hundred jobs).
    ratePerHour = (options.load * options.clusterGpus) / meanGpuHours(trace.jobs);
    trace = generate(ratePerHour);
  }
  const { jobs, issues, reference } = toJobSpecs(trace, {
    perf: options.perf,
    referenceGpuType: options.referenceGpuType,
    ...(options.truth ? { truth: options.truth } : {}),
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new Error(
      `dally workload: ${issues.length} job(s) rejected, e.g. ${first.jobId}: ${first.message}`,
    );
  }
  return ratePerHour === undefined ? { jobs, reference } : { jobs, ratePerHour, reference };
};
