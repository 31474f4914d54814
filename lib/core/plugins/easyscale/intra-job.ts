import type { GpuTypeId } from '../../model/gpu.ts';
import {
  addCounts,
  countOf,
  countsLabel,
  countsTotal,
  countTypes,
  type GpuCounts,
  normalizeCounts,
  restrictCounts,
} from './counts.ts';
import { type Eq1Result, evaluateEq1 } from './eq1.ts';
import type { ElasticJobModel } from './job-model.ts';

/**
 * The intra-job scheduler of EasyScale (§3.4): for a set of GPUs, the EST plan with the highest estimated throughput
 * (role 1); scale-out proposals, one per GPU type (role 2). Plans follow Eq. 1; a plan's speed also pays the
 * per-step gradient synchronisation of its size.
 */

/** A plan that throws away more than this share of its GPUs' capability is rejected (artifact: 0.30). */
export const DEFAULT_MAX_WASTE = 0.3;
/** A proposal may at most multiply the GPUs a job holds by this (artifact: 2). */
export const DEFAULT_GROWTH_FACTOR = 2;

export interface EstPlan {
  /** N_i: GPUs per type; every one of them runs at least one EST. */
  readonly counts: GpuCounts;
  /** A_i: ESTs per GPU of each type (at most; the mapping gives exactly maxP in total). */
  readonly estsPerGpu: GpuCounts;
  readonly eq1: Eq1Result;
  readonly syncSeconds: number;
  /** Estimated global steps per second: 1 / (f_overload + syncSeconds). */
  readonly rate: number;
}

export interface Proposal {
  /** The one GPU type the proposal adds (EasyScale scales out by incremental homogeneous GPUs). */
  readonly gpuType: GpuTypeId;
  readonly added: number;
  /**
   * The top-1 plan on the GPUs held plus the added ones. It uses every added GPU and may leave some held GPUs unused
   * (role 1 then gives them back): adding two V100s can move a job off slower GPUs.
   */
  readonly plan: EstPlan;
  /** ((rate_new / rate_cur) − 1) / added + 1: speedup per added GPU. */
  readonly incPerf: number;
}

const EPS = 1e-9;

/**
 * Plans depend only on the job model and the counts, and the same counts come back round after round: memoised per
 * model object (models are shared by jobs with the same signature, see `elasticJobModel`).
 */
const plans = new WeakMap<ElasticJobModel, Map<string, EstPlan | null>>();
const memo = (job: ElasticJobModel, key: string, compute: () => EstPlan | undefined): EstPlan | undefined => {
  let cache = plans.get(job);
  if (!cache) {
    cache = new Map();
    plans.set(job, cache);
  }
  const hit = cache.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const plan = compute();
  cache.set(key, plan ?? null);
  return plan;
};

/** Speedup per added GPU of going from `current` to `next` steps per second with `added` more GPUs. */
export const incPerf = (current: number, next: number, added: number): number => {
  if (!(current > 0 && added > 0))
    throw new RangeError(`incPerf: need current > 0 and added > 0, got ${current}, ${added}`);
  return (next / current - 1) / added + 1;
};

/**
 * The best plan that uses exactly `counts` (every GPU at least one EST): the smallest f_overload such that
 * Σ N_i·⌊C_i·f⌋ ≥ maxP, A_i = ⌊C_i·f⌋. This is the best member of the artifact's candidate family
 * A_i ∈ {⌊C_i·m⌋, ⌈C_i·m⌉} for these counts, found directly instead of by enumeration. Undefined when the counts
 * use a type the job cannot run on, mix types for a homogeneous job, or hold more GPUs than ESTs.
 */
export const balancedPlan = (job: ElasticJobModel, counts: GpuCounts): EstPlan | undefined =>
  memo(job, `b|${countsLabel(counts)}`, () => computeBalancedPlan(job, counts));

const computeBalancedPlan = (job: ElasticJobModel, counts: GpuCounts): EstPlan | undefined => {
  const types = countTypes(counts);
  const total = countsTotal(counts);
  if (types.length === 0 || total > job.maxP) return undefined;
  if (job.homogeneous && types.length > 1) return undefined;
  const capabilities: number[] = [];
  for (const t of types) {
    const c = job.capability.get(t);
    if (c === undefined) return undefined;
    capabilities.push(c);
  }
  // Every GPU runs at least one EST, so a step takes at least 1/C of the slowest type present.
  const lower = Math.max(...capabilities.map((c) => 1 / c));
  const estsAt = (f: number, c: number): number => Math.floor(c * f + EPS);
  const feasible = (f: number): boolean => {
    if (f < lower - EPS) return false;
    let n = 0;
    types.forEach((t, i) => {
      n += countOf(counts, t) * estsAt(f, capabilities[i]!);
    });
    return n >= job.maxP;
  };
  // f* is a/C_i for some type i that binds: binary search a per type, keep the smallest f.
  let best = Number.POSITIVE_INFINITY;
  for (const c of capabilities) {
    let lo = Math.max(1, Math.ceil(lower * c - EPS));
    let hi = job.maxP;
    if (lo > hi || !feasible(hi / c)) continue;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (feasible(mid / c)) hi = mid;
      else lo = mid + 1;
    }
    best = Math.min(best, lo / c);
  }
  if (!Number.isFinite(best)) return undefined;
  // No GPU needs more ESTs than are left once every other GPU has one.
  const cap = job.maxP - total + 1;
  const ests: Record<GpuTypeId, number> = {};
  types.forEach((t, i) => {
    ests[t] = Math.min(cap, estsAt(best, capabilities[i]!));
  });
  const estsPerGpu = normalizeCounts(ests);
  const eq1 = evaluateEq1(
    job.maxP,
    types.map((t, i) => ({
      gpus: countOf(counts, t),
      capability: capabilities[i]!,
      ests: countOf(estsPerGpu, t),
    })),
  );
  const syncSeconds = job.syncSeconds(counts);
  return { counts, estsPerGpu, eq1, syncSeconds, rate: 1 / (eq1.fOverload + syncSeconds) };
};

/** Higher rate first; on a tie fewer GPUs (release what does not help), then a stable label order. */
const better = (a: EstPlan, b: EstPlan | undefined): boolean => {
  if (!b) return true;
  if (Math.abs(a.rate - b.rate) > EPS * Math.max(a.rate, b.rate)) return a.rate > b.rate;
  const ga = countsTotal(a.counts);
  const gb = countsTotal(b.counts);
  if (ga !== gb) return ga < gb;
  return countsLabel(a.counts) < countsLabel(b.counts);
};

/** Slowest types first: they are the first GPUs to give back. */
const slowestFirst = (job: ElasticJobModel, types: GpuTypeId[]): GpuTypeId[] =>
  [...types].sort((a, b) => (job.capability.get(a) ?? 0) - (job.capability.get(b) ?? 0) || (a < b ? -1 : 1));

/**
 * `counts` minus the GPUs that do not make the job faster: first down to maxP GPUs, then one GPU at a time (slowest
 * type first) while the balanced plan is at least as fast without it.
 */
const trimmedPlan = (job: ElasticJobModel, counts: GpuCounts): EstPlan | undefined => {
  let n: Record<GpuTypeId, number> = { ...counts };
  while (countsTotal(normalizeCounts(n)) > job.maxP) {
    const t = slowestFirst(job, countTypes(normalizeCounts(n)))[0]!;
    n[t] = countOf(n, t) - 1;
  }
  let plan = balancedPlan(job, normalizeCounts(n));
  if (!plan) return undefined;
  let trimmed = true;
  while (trimmed && countsTotal(plan.counts) > 1) {
    trimmed = false;
    for (const t of slowestFirst(job, countTypes(plan.counts))) {
      const fewer = normalizeCounts({ ...plan.counts, [t]: countOf(plan.counts, t) - 1 });
      const candidate = balancedPlan(job, fewer);
      if (candidate && candidate.rate >= plan.rate * (1 - EPS)) {
        plan = candidate;
        n = { ...fewer };
        trimmed = true;
        break;
      }
    }
  }
  return plan;
};

/**
 * Role 1: the fastest plan on at most `counts` (it may leave GPUs unused, which the job then gives back) whose waste
 * ratio is within `maxWaste`. One GPU of any usable type always qualifies (all ESTs on it, no waste), so this is
 * undefined only when `counts` holds no type the job can use.
 */
export const bestPlanWithin = (
  job: ElasticJobModel,
  counts: GpuCounts,
  maxWaste = DEFAULT_MAX_WASTE,
): EstPlan | undefined =>
  memo(job, `w|${maxWaste}|${countsLabel(counts)}`, () => computeBestPlanWithin(job, counts, maxWaste));

const computeBestPlanWithin = (
  job: ElasticJobModel,
  counts: GpuCounts,
  maxWaste: number,
): EstPlan | undefined => {
  const types = countTypes(counts).filter((t) => job.capability.has(t));
  let best: EstPlan | undefined;
  const subsets = job.homogeneous ? types.map((t) => [t]) : nonEmptySubsets(types);
  for (const subset of subsets) {
    const plan = trimmedPlan(job, restrictCounts(counts, subset));
    if (plan && plan.eq1.wasteRatio <= maxWaste + EPS && better(plan, best)) best = plan;
  }
  return best;
};

const nonEmptySubsets = <T>(items: readonly T[]): T[][] => {
  const out: T[][] = [];
  for (let mask = 1; mask < 1 << items.length; mask++) out.push(items.filter((_, i) => mask & (1 << i)));
  return out;
};

export interface ProposalLimits {
  /** Free GPUs per type the job could add this round. */
  readonly room: GpuCounts;
  readonly maxWaste?: number;
  readonly growthFactor?: number;
  /** GPU types the job must not grow by from its current counts (a scale-out that was measured slower). */
  readonly blocked?: ReadonlySet<GpuTypeId>;
}

/**
 * Role 2: scale-out proposals from `current`, each adding GPUs of one type: at most `growthFactor` × the GPUs held
 * and maxP in total, judged by the top-1 plan on the resulting GPUs (within the waste cut, using every added GPU,
 * faster than now). For each type the proposal with the best inc_perf is submitted (on a tie the one adding more).
 */
export const proposals = (job: ElasticJobModel, current: EstPlan, limits: ProposalLimits): Proposal[] => {
  const maxWaste = limits.maxWaste ?? DEFAULT_MAX_WASTE;
  const held = countsTotal(current.counts);
  const limit = Math.min(job.maxP, (limits.growthFactor ?? DEFAULT_GROWTH_FACTOR) * held);
  const types = job.homogeneous ? countTypes(current.counts) : [...job.capability.keys()];
  const out: Proposal[] = [];
  for (const gpuType of types) {
    if (limits.blocked?.has(gpuType)) continue;
    let best: Proposal | undefined;
    const most = Math.min(countOf(limits.room, gpuType), limit - held);
    for (let added = 1; added <= most; added++) {
      const plan = bestPlanWithin(job, addCounts(current.counts, { [gpuType]: added }), maxWaste);
      if (!plan || plan.rate <= current.rate * (1 + EPS)) continue;
      if (countOf(plan.counts, gpuType) !== countOf(current.counts, gpuType) + added) continue;
      const score = incPerf(current.rate, plan.rate, added);
      if (
        !best ||
        score > best.incPerf + EPS ||
        (Math.abs(score - best.incPerf) <= EPS && added > best.added)
      ) {
        best = { gpuType, added, plan, incPerf: score };
      }
    }
    if (best) out.push(best);
  }
  return out;
};

/**
 * The plan a job without GPUs starts on: `minGpus` GPUs (at least one) of the fastest single type with room; a
 * heterogeneous job that finds no single type with room takes the fastest free GPUs of several types.
 */
export const minimalPlan = (
  job: ElasticJobModel,
  free: GpuCounts,
  maxWaste = DEFAULT_MAX_WASTE,
): EstPlan | undefined => {
  const gpus = job.minGpus;
  let best: EstPlan | undefined;
  for (const t of job.capability.keys()) {
    if (countOf(free, t) < gpus) continue;
    const plan = balancedPlan(job, { [t]: gpus });
    if (plan && plan.eq1.wasteRatio <= maxWaste + EPS && better(plan, best)) best = plan;
  }
  if (best || job.homogeneous) return best;
  const mixed: Record<GpuTypeId, number> = {};
  let needed = gpus;
  for (const t of job.capability.keys()) {
    const take = Math.min(needed, countOf(free, t));
    if (take > 0) mixed[t] = take;
    needed -= take;
  }
  if (needed > 0) return undefined;
  const plan = balancedPlan(job, normalizeCounts(mixed));
  return plan && plan.eq1.wasteRatio <= maxWaste + EPS ? plan : undefined;
};
