import { loadCluster } from '../clusters/load.ts';
import type { Cluster } from '../core/model/cluster.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { PerfModel } from '../core/model/perf.ts';
import { getPolicy } from '../core/policies.ts';
import { loadDefaultPerfModel } from '../data/perf.ts';
import { assignModels } from '../traces/generators/models.ts';
import { loadTrace } from '../traces/index.ts';
import { sliceTrace } from '../traces/slice.ts';
import type { TraceFormat, TraceIssue } from '../traces/types.ts';
import { groundTruthModel } from './ground-truth.ts';
import { DEFAULT_MODEL_MIX } from './model-mix.ts';
import { offeredLoad } from './offered-load.ts';
import type { ReferenceHardware } from './reference-placement.ts';
import { type SimConfig, type SimResult, simulate } from './simulator.ts';
import { type SimSummary, summarize } from './summary.ts';
import { traceModels } from './user-models.ts';
import { toJobSpecs, type WorkloadIssue } from './workload.ts';

export interface WorkloadRequest {
  /** A trace file path or a builtin (`philly`, `gavel:<jobs>:<rate>`, …). */
  readonly trace: string;
  readonly format?: TraceFormat;
  readonly cluster: string;
  readonly skipDays?: number;
  readonly days?: number;
  readonly maxJobs?: number;
  readonly load?: number;
  readonly seed?: number;
  /** GPU type the trace's durations were measured on. */
  readonly referenceGpuType?: string;
  /** GPUs per host of the hardware they were measured on; default the trace source's own, else 8. */
  readonly referenceHostGpus?: number;
}

export interface Workload {
  readonly traceName: string;
  readonly cluster: Cluster;
  readonly jobs: readonly JobSpec[];
  readonly perf: PerfModel;
  readonly truth: PerfModel;
  readonly traceIssues: readonly TraceIssue[];
  readonly workloadIssues: readonly WorkloadIssue[];
  /** The hardware the trace's run times convert through: GPU type and GPUs per host (lib/sim/reference-placement.ts). */
  readonly reference: ReferenceHardware;
  /** Offered load of the jobs on the cluster (lib/sim/offered-load.ts); infinite when all arrive at once. */
  readonly offeredLoad: number;
}

export const DEFAULT_REFERENCE_GPU = 'V100-16GB';

/** Read the trace and cluster, cut the window, assign models where the trace has none, convert to job specs. */
export const loadWorkload = (request: WorkloadRequest): Workload => {
  const seed = request.seed ?? 0;
  const cluster = loadCluster(request.cluster);
  const base = loadDefaultPerfModel();
  const loaded = loadTrace(request.trace, { ...(request.format ? { format: request.format } : {}), seed });
  const window = sliceTrace(loaded, {
    ...(request.skipDays !== undefined ? { skipDays: request.skipDays } : {}),
    ...(request.days !== undefined ? { days: request.days } : {}),
    ...(request.maxJobs !== undefined ? { maxJobs: request.maxJobs } : {}),
  });
  const withModels = assignModels(window, { models: DEFAULT_MODEL_MIX, seed });
  const models = traceModels(withModels.jobs, base);
  const perf = models.perf;
  const truth = groundTruthModel(models.truth, { seed });
  const referenceGpuType = request.referenceGpuType ?? DEFAULT_REFERENCE_GPU;
  const { jobs, issues, reference } = toJobSpecs(withModels, {
    perf,
    truth,
    referenceGpuType,
    ...(request.referenceHostGpus !== undefined ? { referenceHostGpus: request.referenceHostGpus } : {}),
    ...(request.load !== undefined ? { load: request.load } : {}),
  });
  return {
    traceName: request.trace,
    cluster,
    jobs,
    perf,
    truth,
    traceIssues: loaded.issues,
    workloadIssues: issues,
    reference,
    offeredLoad: offeredLoad(jobs, cluster, truth, reference),
  };
};

export interface PolicyRun {
  readonly summary: SimSummary;
  readonly result: SimResult;
}

/** Simulate each policy on the same workload, one after the other; wall time is measured here, in the shell. */
export const runPolicies = (
  workload: Workload,
  policies: readonly string[],
  config: Partial<SimConfig>,
  onProgress?: (policy: string, fraction: number) => void,
): PolicyRun[] =>
  policies.map((name) => {
    const policy = getPolicy(name);
    const started = performance.now();
    const result = simulate({
      cluster: workload.cluster,
      jobs: workload.jobs,
      policy,
      perf: workload.perf,
      truth: workload.truth,
      config,
      ...(onProgress ? { onProgress: (f: number) => onProgress(name, f) } : {}),
    });
    const wallSeconds = (performance.now() - started) / 1000;
    return { summary: summarize(result, workload.traceName, wallSeconds), result };
  });
