import { CRIUS_BATCH_SIZES } from '../lib/core/catalog/layers.ts';
import { bestShape } from '../lib/core/framework/estimates.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { AdaptiveParallelPerfModel } from '../lib/core/plugins/crius/adaptive-perf.ts';
import { Random } from '../lib/traces/generators/random.ts';
import type { Trace } from '../lib/traces/types.ts';

/**
 * The Crius evaluation workload (§8.1): Philly arrivals and durations; each job gets a model of Table 2 (family,
 * size and global batch drawn uniformly), a GPU type drawn uniformly among the cluster's types and a GPU count
 * ("we randomly generate the GPU amount and GPU type", §8.1; see `counts`), raised to the smallest count on which
 * the drawn model fits the drawn type, so large models ask for what they need. The recorded duration is taken to be the run time
 * on that requested allocation with adaptive parallelism (the executor's best plan, consolidated): iterations =
 * duration × that throughput, so every policy moves the same work.
 */

export const TABLE2_MODELS: Readonly<Record<keyof typeof CRIUS_BATCH_SIZES, readonly string[]>> = {
  'wide-resnet': [
    'wide-resnet-0.5b',
    'wide-resnet-1b',
    'wide-resnet-2b',
    'wide-resnet-4b',
    'wide-resnet-6.8b',
  ],
  bert: ['bert-0.76b', 'bert-1.3b', 'bert-2.6b', 'bert-6.7b'],
  moe: ['moe-0.69b', 'moe-1.3b', 'moe-2.4b', 'moe-10b', 'moe-27b'],
};

export interface CriusWorkloadOptions {
  readonly trace: Trace;
  readonly cluster: Cluster;
  /** The executor's model: requested allocations must run under adaptive parallelism; durations become iterations on it. */
  readonly truth: AdaptiveParallelPerfModel;
  readonly seed: number;
  /**
   * `random` (default, the paper's "we randomly generate the GPU amount"): a count drawn uniformly from
   * {1, 2, 4, 8, 16}; `trace`: the trace's own count rounded up to a power of two. Either is then raised to the
   * smallest count on which the drawn model fits the drawn type.
   */
  readonly counts?: 'random' | 'trace';
  /** Multiplies every recorded duration (a testbed replays a slice in the time it has). Default 1. */
  readonly durationScale?: number;
}

export interface CriusWorkload {
  readonly jobs: JobSpec[];
  /** Trace rows left out (no duration, or no fitting request on this cluster), with the reason. */
  readonly skipped: readonly { readonly id: string; readonly reason: string }[];
}

const pow2Ceil = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/** GPU counts a job is drawn from: the scales of the Alpa/Crius model benchmarks. */
export const RANDOM_COUNTS = [1, 2, 4, 8, 16] as const;

/** GPU-seconds the workload asks for on its requested allocations. */
export const requestedGpuSeconds = (jobs: readonly JobSpec[]): number =>
  jobs.reduce((s, j) => s + j.gpus * Number(j.labels?.duration ?? 0), 0);

export const criusWorkload = (o: CriusWorkloadOptions): CriusWorkload => {
  const rng = new Random(o.seed, 7);
  const capacity = new Map<string, { gpus: number; largestHost: number }>();
  for (const h of o.cluster.hosts) {
    const c = capacity.get(h.gpuType) ?? { gpus: 0, largestHost: 0 };
    capacity.set(h.gpuType, { gpus: c.gpus + h.gpuCount, largestHost: Math.max(c.largestHost, h.gpuCount) });
  }
  const types = [...capacity.keys()].sort();
  const families = Object.keys(TABLE2_MODELS) as (keyof typeof TABLE2_MODELS)[];
  const rate = (model: string, batchSize: number, gpuType: string, gpus: number): number =>
    o.truth.adaptiveThroughput({
      model,
      batchSize,
      gpuType,
      gpus,
      shape: bestShape(gpus, capacity.get(gpuType)),
    })?.iterationsPerSecond ?? 0;
  const jobs: JobSpec[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const row of o.trace.jobs) {
    // Draw everything first so a skipped row does not shift the next rows' draws.
    const family = families[rng.int(0, families.length - 1)]!;
    const models = TABLE2_MODELS[family];
    const model = models[rng.int(0, models.length - 1)]!;
    const batches = CRIUS_BATCH_SIZES[family];
    const batchSize = batches[rng.int(0, batches.length - 1)]!;
    const gpuType = types[rng.int(0, types.length - 1)]!;
    const drawn = RANDOM_COUNTS[rng.int(0, RANDOM_COUNTS.length - 1)]!;
    if (row.duration === undefined || !(row.duration > 0)) {
      skipped.push({ id: row.id, reason: 'no duration' });
      continue;
    }
    const duration = row.duration * (o.durationScale ?? 1);
    const cap = capacity.get(gpuType)!.gpus;
    let gpus = (o.counts ?? 'random') === 'random' ? drawn : pow2Ceil(row.gpus);
    while (gpus <= cap && !(rate(model, batchSize, gpuType, gpus) > 0)) gpus *= 2;
    if (gpus > cap) {
      skipped.push({ id: row.id, reason: `${model} fits no count of ${gpuType} up to ${cap}` });
      continue;
    }
    jobs.push({
      id: row.id,
      tenant: row.tenant ?? 'default',
      model,
      batchSize,
      gpus,
      iterations: Math.max(1, Math.round(duration * rate(model, batchSize, gpuType, gpus))),
      priority: 0,
      packable: false,
      submitTime: row.submitTime,
      preferredGpuType: gpuType,
      labels: { ...(row.labels ?? {}), traceGpus: String(row.gpus), duration: String(duration) },
    });
  }
  return { jobs, skipped };
};
