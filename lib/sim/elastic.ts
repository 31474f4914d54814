import type { Host } from '../core/model/cluster.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { ThroughputEstimate, ThroughputQuery } from '../core/model/perf.ts';
import type { Allocation } from '../core/model/plan.ts';
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
