import type { Cluster, Host } from '../core/model/cluster.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { ThroughputEstimate, ThroughputQuery } from '../core/model/perf.ts';
import type { Allocation } from '../core/model/plan.ts';
import { estCapability } from '../core/plugins/easyscale/job-model.ts';
import { elasticThroughput } from '../core/plugins/easyscale/rate.ts';
import type { ExecutorModel } from './simulator.ts';

/**
 * The executor's rate of an elastic job on its EST mapping (EasyScale: maxP / f_overload mini-batches per second with
 * the ground truth's C_i, then the per-step all-reduce), times the truth's per-(job, allocation) noise like any job.
 */
export const elasticExecutorThroughput = (
  truth: ExecutorModel,
  spec: JobSpec,
  allocation: Allocation,
  hostOf: (hostId: string) => Host | undefined,
  query: ThroughputQuery,
): ThroughputEstimate => {
  const base = elasticThroughput(truth, spec, allocation, hostOf, query.shape);
  if (!truth.jobThroughput || !(base.iterationsPerSecond > 0) || !spec.elastic) return base;
  // The noise depends on the job and its GPUs only, not on the query: read it off a one-GPU probe.
  const probe: ThroughputQuery = {
    model: spec.model,
    batchSize: spec.batchSize / spec.elastic.maxP,
    gpuType: allocation.gpuType,
    gpus: 1,
    shape: { level: 'machine', hosts: 1 },
  };
  const plain = truth.throughput(probe).iterationsPerSecond;
  if (!(plain > 0)) return base;
  const noise = truth.jobThroughput(spec.id, allocation, probe).iterationsPerSecond / plain;
  return {
    ...base,
    iterationsPerSecond: base.iterationsPerSecond * noise,
    computeSeconds: base.computeSeconds / noise,
    commSeconds: base.commSeconds / noise,
  };
};

/**
 * An upper bound on an elastic job's steps per second on this cluster (before noise): a step needs maxP EST
 * mini-batches, at best on the maxP fastest allowed GPUs together, and at least one mini-batch on the fastest GPU;
 * communication only slows it further.
 */
export const elasticRateBound = (spec: JobSpec, cluster: Cluster, truth: ExecutorModel): number => {
  const elastic = spec.elastic;
  if (!elastic) return 0;
  const allowed = spec.gpuTypes && spec.gpuTypes.length > 0 ? new Set(spec.gpuTypes) : undefined;
  const capability = new Map<string, number>();
  const perGpu: number[] = [];
  for (const host of cluster.hosts) {
    if (allowed && !allowed.has(host.gpuType)) continue;
    let c = capability.get(host.gpuType);
    if (c === undefined) {
      c = estCapability(truth, spec, elastic, host.gpuType);
      capability.set(host.gpuType, c);
    }
    for (let g = 0; g < host.gpuCount; g++) if (c > 0) perGpu.push(c);
  }
  if (perGpu.length === 0) return 0;
  perGpu.sort((a, b) => b - a);
  const fastest = perGpu.slice(0, elastic.maxP).reduce((s, c) => s + c, 0);
  return Math.min(perGpu[0]!, fastest / elastic.maxP);
};
