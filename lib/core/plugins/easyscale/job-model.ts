import type { TypeCapacity } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { ElasticSpec, JobSpec } from '../../model/job.ts';
import type { PerfModel, PlacementShape } from '../../model/perf.ts';
import { countOf, countsTotal, countTypes, type GpuCounts } from './counts.ts';

/**
 * What the intra-job scheduler knows about one elastic job: its logical workers, the GPU types its plans may use
 * with their capability C_i, and the gradient synchronisation a placement of a given size costs.
 */
export interface ElasticJobModel {
  readonly maxP: number;
  /** GPUs the job needs to make progress (at least 1 whenever it runs). */
  readonly minGpus: number;
  /** C_i in EST mini-batches per second, for every type the job's plans may use (C_i > 0), fastest first. */
  readonly capability: ReadonlyMap<GpuTypeId, number>;
  /** Plans use a single GPU type (the job needs hardware-specific kernels, or the policy forbids mixing). */
  readonly homogeneous: boolean;
  /** Exposed gradient synchronisation seconds per global step when the plan holds `counts`. */
  syncSeconds(counts: GpuCounts): number;
}

/** The mini-batch of one EST: the global batch split over the `maxP` logical workers. */
export const estBatchSize = (spec: JobSpec, elastic: ElasticSpec): number => spec.batchSize / elastic.maxP;

/**
 * C_i: EST mini-batches per second on one GPU of `gpuType` (0 = the model cannot run there). One worker keeps one
 * parameter/optimizer copy and runs its ESTs one mini-batch at a time, so this is the single-GPU rate at the EST's
 * batch.
 */
export const estCapability = (
  perf: PerfModel,
  spec: JobSpec,
  elastic: ElasticSpec,
  gpuType: GpuTypeId,
): number =>
  perf.throughput({
    model: spec.model,
    batchSize: estBatchSize(spec, elastic),
    gpuType,
    gpus: 1,
    shape: { level: 'machine', hosts: 1 },
  }).iterationsPerSecond;

/**
 * Exposed all-reduce seconds per global step for `counts` GPUs placed as `shape`. The all-reduce runs once per step,
 * after the last EST's backward pass, over one gradient copy per worker: the data-parallel communication of that many
 * GPUs at the EST batch. On mixed types the slowest link sets the pace, so the largest of the per-type figures.
 */
export const syncSecondsOn = (
  perf: PerfModel,
  spec: JobSpec,
  elastic: ElasticSpec,
  counts: GpuCounts,
  shape: PlacementShape,
): number => {
  const gpus = countsTotal(counts);
  if (gpus <= 1) return 0;
  let sync = 0;
  for (const gpuType of countTypes(counts)) {
    const estimate = perf.throughput({
      model: spec.model,
      batchSize: estBatchSize(spec, elastic) * gpus,
      gpuType,
      gpus,
      shape,
    });
    if (estimate.iterationsPerSecond > 0) sync = Math.max(sync, estimate.commSeconds);
  }
  return sync;
};

/**
 * Where a plan's GPUs will probably sit before placement decides: each type on as few of its largest hosts as
 * possible; one host = machine, several hosts of one type = rack, mixed types = network (types sit on separate
 * hosts, usually in separate racks).
 */
export const estimatedShape = (
  counts: GpuCounts,
  capacity: ReadonlyMap<GpuTypeId, TypeCapacity>,
): PlacementShape => {
  let hosts = 0;
  const types = countTypes(counts);
  for (const type of types)
    hosts += Math.ceil(countOf(counts, type) / Math.max(1, capacity.get(type)?.largestHost ?? 1));
  if (hosts <= 1) return { level: 'machine', hosts: 1 };
  return { level: types.length === 1 ? 'rack' : 'network', hosts };
};

export interface JobModelOptions {
  /** Every job's plans use one GPU type, whatever its spec allows (EasyScale-homo). */
  readonly homogeneousOnly: boolean;
}

/**
 * The intra-job model of an elastic job. Types: the spec's allowed types present in the cluster on which the model
 * runs. A homogeneous job is tied to `tieTo` (the type it holds) when given, else to its preferred type when that
 * is allowed; otherwise it picks one type when it starts. Jobs with the same signature share one model object, so the
 * plans memoised on it (intra-job.ts) carry over from round to round.
 */
export const elasticJobModel = (
  spec: JobSpec,
  perf: PerfModel,
  capacity: ReadonlyMap<GpuTypeId, TypeCapacity>,
  options: JobModelOptions,
  tieTo?: GpuTypeId,
): ElasticJobModel => {
  const elastic = spec.elastic;
  if (!elastic) throw new Error(`job ${spec.id} is not elastic`);
  const homogeneous = options.homogeneousOnly || !elastic.heterogeneous;
  const allowed = spec.gpuTypes && spec.gpuTypes.length > 0 ? new Set(spec.gpuTypes) : undefined;
  let types = [...capacity.keys()].filter((t) => !allowed || allowed.has(t)).sort();
  if (homogeneous) {
    const preferred =
      spec.preferredGpuType && types.includes(spec.preferredGpuType) ? spec.preferredGpuType : undefined;
    const tie = tieTo ?? preferred;
    if (tie !== undefined) types = types.filter((t) => t === tie);
  }
  const signature = [
    spec.model,
    spec.batchSize,
    elastic.maxP,
    elastic.minGpus,
    homogeneous,
    types.map((t) => `${t}:${capacity.get(t)?.gpus}:${capacity.get(t)?.largestHost}`).join(','),
  ].join('|');
  let cache = models.get(perf);
  if (!cache) {
    cache = new Map();
    models.set(perf, cache);
  }
  const hit = cache.get(signature);
  if (hit) return hit;
  const rated = types
    .map((t) => [t, estCapability(perf, spec, elastic, t)] as const)
    .filter(([, c]) => c > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const model: ElasticJobModel = {
    maxP: elastic.maxP,
    minGpus: Math.max(1, elastic.minGpus),
    capability: new Map(rated),
    homogeneous,
    syncSeconds: (counts) => syncSecondsOn(perf, spec, elastic, counts, estimatedShape(counts, capacity)),
  };
  cache.set(signature, model);
  return model;
};

/** Models by performance model and job signature (model, batch, maxP, minGpus, homogeneity, usable types). */
const models = new WeakMap<PerfModel, Map<string, ElasticJobModel>>();
