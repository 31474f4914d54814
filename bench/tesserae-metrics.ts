import type { Cluster } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import type { SimResult } from '../lib/sim/simulator.ts';

export interface FtfSummary {
  /** Mean finish-time fairness ρ over completed jobs. */
  readonly mean: number;
  /** Worst (largest) ρ. */
  readonly max: number;
}

/**
 * Finish-time fairness (Themis, NSDI '20), as Tesserae §6 reports it: ρ = T_shared / T_isolated per completed
 * job, where T_shared is its JCT and T_isolated the time it would take alone on a 1/N share of the cluster, N
 * the time-averaged number of active jobs while it was in the system: its isolated run time (requested GPUs,
 * consolidated, under the executor's model), stretched when its demand exceeds the fair share G/N.
 */
export const finishTimeFairness = (
  result: SimResult,
  specs: readonly JobSpec[],
  cluster: Cluster,
  truth: PerfModel,
): FtfSummary => {
  const byId = new Map(specs.map((s) => [s.id, s]));
  const area = activeJobArea(result);
  const ratios: number[] = [];
  for (const record of result.jobs) {
    if (record.outcome !== 'completed' || record.jct === undefined) continue;
    const spec = byId.get(record.id);
    if (!spec) throw new Error(`finish-time fairness: job ${record.id} is not in the workload`);
    const alone = isolatedSeconds(spec, cluster, truth);
    const start = record.submitTime;
    const end = start + record.jct;
    const contention = end > start ? Math.max(1, (area(end) - area(start)) / (end - start)) : 1;
    const fairShare = result.totalGpus / contention;
    const ideal = alone * Math.max(1, spec.gpus / fairShare);
    ratios.push(record.jct / ideal);
  }
  if (ratios.length === 0) return { mean: Number.NaN, max: Number.NaN };
  return { mean: ratios.reduce((s, r) => s + r, 0) / ratios.length, max: Math.max(...ratios) };
};

/** ∫ active jobs dt from the first timeline point, as a function of time (the timeline is piecewise constant). */
const activeJobArea = (result: SimResult): ((t: number) => number) => {
  const points = result.timeline;
  const times = points.map((p) => p.t);
  const cumulative: number[] = [0];
  for (let i = 1; i < points.length; i++) {
    const p = points[i - 1]!;
    cumulative.push(cumulative[i - 1]! + (p.runningJobs + p.waitingJobs) * (points[i]!.t - p.t));
  }
  return (t: number) => {
    if (points.length === 0 || t <= times[0]!) return 0;
    let lo = 0;
    let hi = times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid]! <= t) lo = mid;
      else hi = mid - 1;
    }
    const p = points[lo]!;
    return cumulative[lo]! + (p.runningJobs + p.waitingJobs) * (t - p.t);
  };
};

/** The job alone on its requested GPUs, consolidated as well as the cluster allows, on its fastest allowed type. */
const isolatedSeconds = (spec: JobSpec, cluster: Cluster, truth: PerfModel): number => {
  const largest = new Map<string, number>();
  for (const h of cluster.hosts) largest.set(h.gpuType, Math.max(largest.get(h.gpuType) ?? 0, h.gpuCount));
  let best = 0;
  for (const [type, hostSize] of largest) {
    if (spec.gpuTypes && spec.gpuTypes.length > 0 && !spec.gpuTypes.includes(type)) continue;
    const hosts = Math.ceil(spec.gpus / hostSize);
    const rate = truth.throughput({
      model: spec.model,
      batchSize: spec.batchSize,
      gpuType: type,
      gpus: spec.gpus,
      shape: hosts === 1 ? { level: 'machine', hosts: 1 } : { level: 'rack', hosts },
    }).iterationsPerSecond;
    best = Math.max(best, rate);
  }
  return best > 0 ? spec.iterations / best : Number.POSITIVE_INFINITY;
};
