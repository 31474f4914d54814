import { partitionPoint } from '../core/framework/partition-point.ts';
import { capacityByType } from '../core/framework/type-capacity.ts';
import type { Cluster } from '../core/model/cluster.ts';
import type { GpuTypeId } from '../core/model/gpu.ts';
import type { JobSpec } from '../core/model/job.ts';
import type { Level } from '../core/model/topology.ts';
import { estCapability, syncSecondsOn } from '../core/plugins/easyscale/job-model.ts';
import type { ExecutorModel } from './simulator.ts';

/**
 * The best steps per second an elastic job could reach alone running an EST mapping on this cluster (before the
 * executor's per-job noise): the executor's own rate (`elasticThroughput`: the slowest worker's ESTs one after
 * another, then the all-reduce) maximised over every set of GPU types it may use, every GPU count up to maxP, every
 * consolidation (hosts, level) those GPUs could have and the min–max EST mapping on them. Communication counts: a
 * bound that left it out put vgg19 on 32 GPUs at a quarter of the time any allocation can reach.
 */
export const bestElasticRate = (spec: JobSpec, cluster: Cluster, truth: ExecutorModel): number => {
  const elastic = spec.elastic;
  if (!elastic) return 0;
  const key = signature(spec);
  let byCluster = memo.get(truth);
  if (!byCluster) {
    byCluster = new WeakMap();
    memo.set(truth, byCluster);
  }
  let rates = byCluster.get(cluster);
  if (!rates) {
    rates = new Map();
    byCluster.set(cluster, rates);
  }
  let rate = rates.get(key);
  if (rate === undefined) {
    rate = search(spec, cluster, truth);
    rates.set(key, rate);
  }
  return rate;
};

/** What the rate depends on: model, batch, maxP, heterogeneity, allowed types (not the id or the iterations). */
const signature = (spec: JobSpec): string =>
  [
    spec.model,
    spec.batchSize,
    spec.elastic!.maxP,
    spec.elastic!.heterogeneous,
    (spec.gpuTypes ?? []).join(','),
  ].join('|');

const memo = new WeakMap<ExecutorModel, WeakMap<Cluster, Map<string, number>>>();

interface TypeRoom {
  readonly type: GpuTypeId;
  /** C_t: EST mini-batches per second on one GPU of the type. */
  readonly capability: number;
  readonly gpus: number;
  readonly hosts: number;
  readonly largestHost: number;
}

const search = (spec: JobSpec, cluster: Cluster, truth: ExecutorModel): number => {
  const elastic = spec.elastic!;
  const rooms = typeRooms(spec, cluster, truth);
  // A job whose ESTs must share one GPU type (EasyScale's D2 determinism) runs on one type at a time.
  const sets = elastic.heterogeneous ? subsets(rooms) : rooms.map((r) => [r]);
  let best = 0;
  for (const set of sets) {
    const gpus = set.reduce((s, r) => s + r.gpus, 0);
    const hosts = set.reduce((s, r) => s + r.hosts, 0);
    const largest = Math.max(...set.map((r) => r.largestHost));
    for (let n = set.length; n <= Math.min(elastic.maxP, gpus); n++) {
      const compute = stepComputeSeconds(set, n, elastic.maxP);
      if (!Number.isFinite(compute)) continue;
      // Every worker count on 1..n hosts the types could offer; the fewest hosts need not communicate least.
      const counts = Object.fromEntries(set.map((r, i) => [r.type, i === 0 ? n - set.length + 1 : 1]));
      for (let h = Math.max(set.length, Math.ceil(n / largest)); h <= Math.min(n, hosts); h++) {
        for (const level of levelsFor(h)) {
          const sync = syncSecondsOn(truth, spec, elastic, counts, { level, hosts: h });
          best = Math.max(best, 1 / (compute + sync));
        }
      }
    }
  }
  return best;
};

const levelsFor = (hosts: number): readonly Level[] => (hosts === 1 ? ['machine'] : ['rack', 'network']);

/** Allowed GPU types present in the cluster on which one EST mini-batch runs, with their room. */
const typeRooms = (spec: JobSpec, cluster: Cluster, truth: ExecutorModel): TypeRoom[] => {
  const allowed = spec.gpuTypes && spec.gpuTypes.length > 0 ? new Set(spec.gpuTypes) : undefined;
  const byType = capacityByType(
    allowed ? cluster.hosts.filter((h) => allowed.has(h.gpuType)) : cluster.hosts,
  );
  const rooms: TypeRoom[] = [];
  for (const [type, r] of byType) {
    const capability = estCapability(truth, spec, spec.elastic!, type);
    if (capability > 0) rooms.push({ type, capability, ...r });
  }
  return rooms;
};

/** Every non-empty subset of the types (a cluster has a handful). */
const subsets = <T>(items: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let mask = 1; mask < 1 << items.length; mask++) out.push(items.filter((_, i) => mask & (1 << i)));
  return out;
};

/**
 * The shortest compute time of a step on `n` workers using every type of `set` (at least one worker each, at most
 * its GPUs), each worker running ≥ 1 EST one after another: the least f with room for `maxP` ESTs when a worker of
 * type t runs ⌊f·C_t⌋ of them. f is always some k / C_t, so the candidates are searched in order.
 */
export const stepComputeSeconds = (
  set: readonly Pick<TypeRoom, 'capability' | 'gpus'>[],
  n: number,
  maxP: number,
): number => {
  const candidates = set.flatMap((r) => Array.from({ length: maxP }, (_, k) => (k + 1) / r.capability));
  candidates.sort((a, b) => a - b);
  const first = partitionPoint(candidates.length, (i) => room(set, n, candidates[i]!) >= maxP);
  return first < candidates.length ? candidates[first]! : Number.POSITIVE_INFINITY;
};

/** ESTs `n` workers of `set` can run within f seconds: one worker per type, the rest on the roomiest types. */
const room = (set: readonly Pick<TypeRoom, 'capability' | 'gpus'>[], n: number, f: number): number => {
  // A tiny slack so that f = k / C_t holds k ESTs despite rounding.
  const per = set.map((r) => ({ ests: Math.floor(f * r.capability * (1 + 1e-12)), left: r.gpus - 1 }));
  if (per.some((p) => p.ests < 1)) return 0;
  let total = per.reduce((s, p) => s + p.ests, 0);
  let workers = n - set.length;
  for (const p of [...per].sort((a, b) => b.ests - a.ests)) {
    const take = Math.min(workers, p.left);
    total += take * p.ests;
    workers -= take;
  }
  return workers > 0 ? 0 : total;
};
