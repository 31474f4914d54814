import type { Cluster } from '../core/model/cluster.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { PerfModel } from '../core/model/perf.ts';
import { type ReferenceHardware, referenceQuery } from './reference-placement.ts';

/**
 * Offered load of a workload on a cluster: the GPU-seconds its jobs need alone on their reference placement (the
 * requested count of the reference GPU type on the fewest reference hosts, lib/sim/reference-placement.ts, at
 * `model`'s rate — the executor's, so a trace job needs its recorded run time) over the GPU-seconds the cluster
 * offers while they arrive: Σ gpus × iterations / rate ÷ (cluster GPUs × (last arrival − first arrival)). Above 1
 * the queue grows without bound; arrivals all at once (span 0) offer infinite load. Jobs that make no progress
 * there add nothing.
 */
export const offeredLoad = (
  jobs: readonly JobSpec[],
  cluster: Cluster,
  model: PerfModel,
  reference: ReferenceHardware,
): number => {
  const gpus = cluster.hosts.reduce((n, h) => n + h.gpuCount, 0);
  if (jobs.length === 0 || gpus === 0) return 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let demand = 0;
  for (const job of jobs) {
    first = Math.min(first, job.submitTime);
    last = Math.max(last, job.submitTime);
    const rate = model.throughput(referenceQuery(job, reference)).iterationsPerSecond;
    if (rate > 0) demand += (job.gpus * job.iterations) / rate;
  }
  const span = last - first;
  return span > 0 ? demand / (gpus * span) : Number.POSITIVE_INFINITY;
};
