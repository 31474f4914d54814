import type { Host } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobSpec } from '../../model/job.ts';
import type { PerfModel, PlacementShape, ThroughputEstimate } from '../../model/perf.ts';
import type { Allocation } from '../../model/plan.ts';
import { normalizeCounts } from './counts.ts';
import { mappingStepSeconds } from './est-mapping.ts';
import { estCapability, syncSecondsOn } from './job-model.ts';

/** The GPU type of every worker of an allocation, in worker-rank order (slices in order, GPUs in slice order). */
export const workerTypes = (
  allocation: Allocation,
  hostOf: (hostId: string) => Host | undefined,
): GpuTypeId[] =>
  allocation.slices.flatMap((s) => s.gpus.map(() => hostOf(s.hostId)?.gpuType ?? allocation.gpuType));

/**
 * Throughput of an elastic job running its EST mapping: each worker runs its ESTs' mini-batches one after another
 * (C_i per second on its type), the slowest worker sets the step's compute time (f_overload, so maxP / f_overload
 * mini-batches per second), then one gradient all-reduce over the workers. Global steps per second.
 * The simulator's executor evaluates it with the ground truth; schedulers with their own estimates.
 */
export const elasticThroughput = (
  perf: PerfModel,
  spec: JobSpec,
  allocation: Allocation,
  hostOf: (hostId: string) => Host | undefined,
  shape: PlacementShape,
): ThroughputEstimate => {
  const elastic = spec.elastic;
  const ests = allocation.ests;
  if (!elastic || !ests) throw new Error(`elasticThroughput: job ${spec.id} has no EST mapping`);
  const types = workerTypes(allocation, hostOf);
  if (ests.length !== types.length) {
    throw new Error(
      `elasticThroughput: job ${spec.id} maps ESTs to ${ests.length} workers on ${types.length} GPUs`,
    );
  }
  const capability = new Map<GpuTypeId, number>();
  const capabilityOf = (t: GpuTypeId): number => {
    let c = capability.get(t);
    if (c === undefined) {
      c = estCapability(perf, spec, elastic, t);
      capability.set(t, c);
    }
    return c;
  };
  const computeSeconds = mappingStepSeconds(ests, types, capabilityOf);
  if (!Number.isFinite(computeSeconds))
    return { iterationsPerSecond: 0, computeSeconds: 0, commSeconds: 0, source: 'analytic' };
  const counts: Record<GpuTypeId, number> = {};
  for (const t of types) counts[t] = (counts[t] ?? 0) + 1;
  const commSeconds = syncSecondsOn(perf, spec, elastic, normalizeCounts(counts), shape);
  return {
    iterationsPerSecond: 1 / (computeSeconds + commSeconds),
    computeSeconds,
    commSeconds,
    source: perf.throughput({
      model: spec.model,
      batchSize: spec.batchSize / elastic.maxP,
      gpuType: types[0]!,
      gpus: 1,
      shape: { level: 'machine', hosts: 1 },
    }).source,
  };
};
