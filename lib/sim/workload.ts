import { findModelProfile } from '../core/catalog/models.ts';
import { USER_MODEL_NAME, type UserModelRef, userModelId } from '../core/catalog/user-models.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { PerfModel, ThroughputQuery } from '../core/model/perf.ts';
import type { Trace, TraceJob } from '../traces/types.ts';
import {
  checkHostGpus,
  DEFAULT_REFERENCE_HOST_GPUS,
  type ReferenceHardware,
  referenceQuery,
} from './reference-placement.ts';

export interface WorkloadOptions {
  /** What the scheduler believes; reads Gavel's `total_steps` back into run times (it holds Gavel's table). */
  readonly perf: PerfModel;
  /**
   * The executor's model (the simulator's `truth`). A recorded run time is what really happened, so it becomes
   * the iterations the executor runs in that time; defaults to `perf`.
   */
  readonly truth?: PerfModel;
  /** GPU type the trace's durations were measured on; converts durations into iterations. */
  readonly referenceGpuType: string;
  /**
   * GPUs per host of the hardware the durations were measured on; default the trace's own
   * (`trace.referenceHostGpus`), else DEFAULT_REFERENCE_HOST_GPUS.
   */
  readonly referenceHostGpus?: number;
  /** Divide inter-arrival times by this factor (2 = twice the arrival rate). */
  readonly load?: number;
}

export interface WorkloadIssue {
  readonly jobId: string;
  readonly message: string;
}

/** The hardware a trace's run times mean: the options' GPU type, on the options', else the trace's, host size. */
export const traceReference = (trace: Trace, options: WorkloadOptions): ReferenceHardware => ({
  gpuType: options.referenceGpuType,
  hostGpus: checkHostGpus(
    options.referenceHostGpus ?? trace.referenceHostGpus ?? DEFAULT_REFERENCE_HOST_GPUS,
    'the reference host size',
  ),
});

/**
 * Turn trace rows into job specs. Work is kept in iterations: a recorded run time becomes the iterations the job
 * would run in that time on its reference placement — its requested count of the reference GPU type on the fewest
 * of the trace's own hosts (lib/sim/reference-placement.ts) — under the executor's model, so a job alone on the
 * trace's hardware takes its recorded run time, and every policy moves the same amount of work at speeds that
 * depend on the GPUs it is given. `reference` is the hardware used, for the offered load.
 */
export const toJobSpecs = (
  trace: Trace,
  options: WorkloadOptions,
): { jobs: JobSpec[]; issues: WorkloadIssue[]; reference: ReferenceHardware } => {
  const load = options.load ?? 1;
  if (!(load > 0)) throw new Error(`--load must be a positive number, got ${load}`);
  const reference = traceReference(trace, options);
  const jobs: JobSpec[] = [];
  const issues: WorkloadIssue[] = [];
  for (const row of trace.jobs) {
    const spec = toJobSpec(row, options, reference, load);
    if (typeof spec === 'string') issues.push({ jobId: row.id, message: spec });
    else jobs.push(spec);
  }
  return { jobs, issues, reference };
};

/** A row's model: the catalog id, or a model outside the catalog as a job spec would carry it (or why not). */
export const rowModel = (
  row: TraceJob,
): { model: string; batchSize: number; userModel?: UserModelRef } | string => {
  if (!row.model) return 'no model: assign models to the trace first';
  const profile = findModelProfile(row.model);
  if (profile) {
    if (row.profile) return `model "${row.model}" is in the catalog: a profile is only for models outside it`;
    return { model: profile.id, batchSize: row.batchSize ?? profile.defaultBatchSize };
  }
  if (!USER_MODEL_NAME.test(row.model))
    return `model "${row.model}": not in the catalog, and not a valid model name`;
  if (row.batchSize === undefined) return `model "${row.model}" is not in the catalog: give its batchSize`;
  const userModel: UserModelRef = { name: row.model, ...(row.profile ? { profile: row.profile } : {}) };
  return {
    model: userModelId(userModel, { batchSize: row.batchSize, gpus: row.gpus }),
    batchSize: row.batchSize,
    userModel,
  };
};

/** Where Gavel's throughput table measured a job at its scale factor: consolidated on one server. */
const GAVEL_TABLE_SHAPE = { level: 'machine', hosts: 1 } as const;

const toJobSpec = (
  row: TraceJob,
  options: WorkloadOptions,
  hardware: ReferenceHardware,
  load: number,
): JobSpec | string => {
  const resolved = rowModel(row);
  if (typeof resolved === 'string') return resolved;
  const { batchSize } = resolved;
  const reference = referenceQuery({ model: resolved.model, batchSize, gpus: row.gpus }, hardware);
  let iterations = row.iterations;
  if (iterations === undefined) {
    const runTime = row.duration ?? referenceRunTime(row, reference, options.perf);
    if (typeof runTime === 'string') return runTime;
    const rate = (options.truth ?? options.perf).throughput(reference).iterationsPerSecond;
    if (!(rate > 0)) return `model ${row.model} cannot run on ${row.gpus} × ${options.referenceGpuType}`;
    iterations = Math.max(1, Math.round(runTime * rate));
  }
  return {
    id: row.id,
    tenant: row.tenant ?? 'default',
    model: resolved.model,
    ...(resolved.userModel ? { userModel: resolved.userModel } : {}),
    batchSize,
    gpus: row.gpus,
    iterations,
    priority: row.priority ?? 0,
    packable: true,
    submitTime: row.submitTime / load,
    ...(row.gpuType ? { preferredGpuType: row.gpuType } : {}),
    ...(row.deadline !== undefined ? { deadline: row.deadline } : {}),
    ...(row.labels ? { labels: row.labels } : {}),
  };
};

/**
 * The run time behind Gavel's `total_steps` = run time × table rate at the scale factor. The table's rate is
 * summed over the job's workers and the perf model's is the global rate (table ÷ scale, lib/core/perf/measured.ts),
 * so run time = steps ÷ (GPUs × global rate). Gavel's table measures every scale factor consolidated on one
 * server, so the rate is read there whatever the reference hosts; the iterations then follow the reference
 * placement, so the job alone on the reference hosts takes this run time.
 */
const referenceRunTime = (row: TraceJob, reference: ThroughputQuery, perf: PerfModel): number | string => {
  if (row.referenceSteps === undefined) return 'neither iterations nor duration';
  const rate = perf.throughput({ ...reference, shape: GAVEL_TABLE_SHAPE }).iterationsPerSecond;
  if (!(rate > 0)) return `model ${row.model} cannot run on ${row.gpus} × ${reference.gpuType}`;
  return row.referenceSteps / (row.gpus * rate);
};
