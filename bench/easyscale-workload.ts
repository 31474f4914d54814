import { bestShape } from '../lib/core/framework/estimates.ts';
import type { TypeCapacity } from '../lib/core/framework/stages.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import type { GpuTypeId } from '../lib/core/model/gpu.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { Random } from '../lib/traces/generators/random.ts';
import type { Trace, TraceJob } from '../lib/traces/types.ts';

/**
 * The EasyScale trace experiment's workload (specs/easyscale.md §5) rebuilt on the shared data: Philly arrival times,
 * Table 1's eight models, and the authors' artifact workload for the shape of the jobs (maxP, preferred GPU type,
 * per-EST batch). Runtimes keep Philly's distribution, scaled ("down-sampled") to a chosen offered load.
 */

/** Table 1 models with the per-EST mini-batch the artifact's workload uses most for each. */
export const TABLE1_MODELS: readonly { readonly model: string; readonly estBatch: number }[] = [
  { model: 'shufflenetv2', estBatch: 64 },
  { model: 'resnet50', estBatch: 64 },
  { model: 'vgg19', estBatch: 32 },
  { model: 'yolov3', estBatch: 8 },
  { model: 'neumf', estBatch: 1024 },
  { model: 'bert-base', estBatch: 8 },
  { model: 'electra-base', estBatch: 8 },
  { model: 'swin-t', estBatch: 32 },
];

/**
 * Models whose D2 (cross-type) determinism costs < 1 % (paper §5.1.3: NeuMF, BERT, Electra, Swin) may spread over GPU
 * types; the convolution-heavy ones (236 % on average) stay on one type.
 */
export const HETEROGENEOUS_MODELS: ReadonlySet<string> = new Set([
  'neumf',
  'bert-base',
  'electra-base',
  'swin-t',
]);

/** maxP of the artifact's trace workload (simulator/workloads/test.csv): 36 × 32, 18 × 16, 12 × 8, 1 × 4. */
export const ARTIFACT_MAXP: readonly { readonly maxP: number; readonly weight: number }[] = [
  { maxP: 32, weight: 36 },
  { maxP: 16, weight: 18 },
  { maxP: 8, weight: 12 },
  { maxP: 4, weight: 1 },
];

/** Preferred GPU types of the artifact's workload: 50 V100, 13 P100, 4 T4. */
export const ARTIFACT_PREFERRED: readonly { readonly gpuType: GpuTypeId; readonly weight: number }[] = [
  { gpuType: 'V100-16GB', weight: 50 },
  { gpuType: 'P100', weight: 13 },
  { gpuType: 'T4', weight: 4 },
];

export interface EasyScaleWorkloadOptions {
  readonly jobs: number;
  readonly seed: number;
  /**
   * Offered load over the arrival window: Σ maxP × runtime ÷ (cluster GPUs × window). Runtimes are Philly's, scaled
   * by one factor so that the sum comes out at this load.
   */
  readonly load: number;
  readonly cluster: Cluster;
  /** The scheduler's model: turns a runtime on the preferred GPUs into iterations. */
  readonly perf: PerfModel;
  /** Prefix of job ids (a mixed workload combines two generators). */
  readonly idPrefix: string;
  /** Elastic jobs (EasyScale) or rigid gangs of `gpus` GPUs (the guaranteed tier). */
  readonly elastic: boolean;
  /** Rigid jobs only: GPU counts from the Philly rows (true) instead of maxP. */
  readonly phillySizes?: boolean;
}

/** Philly rows with a duration, from the busy period (the caller slices the window). */
export const phillyRows = (philly: Trace, jobs: number): TraceJob[] => {
  const rows = philly.jobs.filter((j) => j.duration !== undefined && j.duration > 0).slice(0, jobs);
  if (rows.length < jobs)
    throw new RangeError(`Philly window has ${rows.length} jobs with a duration, ${jobs} wanted`);
  return rows;
};

const capacityOf = (cluster: Cluster): Map<GpuTypeId, TypeCapacity> => {
  const out = new Map<GpuTypeId, TypeCapacity>();
  for (const h of cluster.hosts) {
    const c = out.get(h.gpuType) ?? { gpus: 0, largestHost: 0 };
    out.set(h.gpuType, { gpus: c.gpus + h.gpuCount, largestHost: Math.max(c.largestHost, h.gpuCount) });
  }
  return out;
};

/**
 * Jobs in the EasyScale style from Philly rows: arrival times are the rows' (re-based); each job gets a Table 1
 * model, a preferred type and a maxP drawn like the artifact's (maxP at most the preferred type's GPUs, so the
 * baseline can run it), a global batch of maxP × the model's EST batch, and a runtime = its Philly duration × one
 * scale factor, meaning the time on maxP (or, rigid Philly-sized, its own count of) preferred GPUs, consolidated.
 */
export const easyScaleWorkload = (
  rows: readonly TraceJob[],
  options: EasyScaleWorkloadOptions,
): JobSpec[] => {
  if (!(options.load > 0)) throw new RangeError(`easyscale workload: load must be > 0, got ${options.load}`);
  const rng = new Random(options.seed, 71);
  const capacity = capacityOf(options.cluster);
  const totalGpus = [...capacity.values()].reduce((s, c) => s + c.gpus, 0);
  const drafts = rows.map((row) => {
    const { model, estBatch } = TABLE1_MODELS[rng.int(0, TABLE1_MODELS.length - 1)]!;
    let preferred = ARTIFACT_PREFERRED[rng.weightedIndex(ARTIFACT_PREFERRED.map((p) => p.weight))]!.gpuType;
    if (!capacity.has(preferred)) preferred = [...capacity.keys()].sort()[0]!;
    const room = capacity.get(preferred)!.gpus;
    const choices = ARTIFACT_MAXP.filter((m) => m.maxP <= room);
    const maxP = choices[rng.weightedIndex(choices.map((m) => m.weight))]?.maxP ?? 1;
    const gpus = !options.elastic && options.phillySizes ? Math.min(row.gpus, room) : maxP;
    return { row, model, estBatch, preferred, maxP, gpus };
  });
  const first = rows[0]?.submitTime ?? 0;
  const window = Math.max(1, (rows[rows.length - 1]?.submitTime ?? first) - first);
  const requested = drafts.reduce((s, d) => s + d.gpus * d.row.duration!, 0);
  const scale = (options.load * totalGpus * window) / requested;
  return drafts.map((d, i): JobSpec => {
    const batchSize = d.estBatch * d.gpus;
    const runtime = Math.max(30, d.row.duration! * scale);
    const rate = options.perf.throughput({
      model: d.model,
      batchSize,
      gpuType: d.preferred,
      gpus: d.gpus,
      shape: bestShape(d.gpus, capacity.get(d.preferred)),
    }).iterationsPerSecond;
    if (!(rate > 0))
      throw new Error(`easyscale workload: ${d.model} cannot run on ${d.gpus} × ${d.preferred}`);
    return {
      id: `${options.idPrefix}${i}`,
      tenant: 'default',
      model: d.model,
      batchSize,
      gpus: d.gpus,
      preferredGpuType: d.preferred,
      iterations: Math.max(1, Math.round(runtime * rate)),
      priority: 0,
      packable: false,
      submitTime: d.row.submitTime - first,
      ...(options.elastic
        ? { elastic: { maxP: d.maxP, minGpus: 0, heterogeneous: HETEROGENEOUS_MODELS.has(d.model) } }
        : {}),
      labels: { phillyJob: d.row.id, runtimeSeconds: String(Math.round(runtime)) },
    };
  });
};
