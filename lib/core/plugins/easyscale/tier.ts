import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import type { FreeGpus } from '../../framework/free-gpus.ts';
import type { AllocateStage, Demand, PlaceStage, Policy, RoundContext } from '../../framework/stages.ts';
import { allocationOf } from '../../model/allocation-of.ts';
import type { HostSlice } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import { type Allocation, type Plan, sameGpus } from '../../model/plan.ts';
import { schedulerStateWith } from '../../model/state.ts';
import { allocateSparingGuaranteed } from './claims-spare-guaranteed.ts';
import {
  allocationCounts,
  countOf,
  countsEqual,
  countsTotal,
  countTypes,
  EMPTY_COUNTS,
  type GpuCounts,
  normalizeCounts,
  subtractCounts,
} from './counts.ts';
import type { ElasticDemand } from './demand.ts';
import { estMapping } from './est-mapping.ts';
import { type ElasticCandidate, type InterJobOptions, scheduleElastic } from './inter-job.ts';
import { bestPlanWithin } from './intra-job.ts';
import { type ElasticJobModel, elasticJobModel, type JobModelOptions } from './job-model.ts';
import { nextElasticMemory } from './memory.ts';
import { workerTypes } from './rate.ts';

/**
 * EasyScale's elastic jobs as the best-effort tier of any policy. The allocation stage lets the policy's own stage
 * size the guaranteed (non-elastic) jobs against the whole cluster, as if no elastic job existed, then runs the
 * EasyScale inter-job scheduler on what they leave idle; the placement stage places the guaranteed jobs first with the
 * policy's own stage and the elastic plans on the GPUs that are still free. Elastic jobs therefore never hold a GPU a
 * guaranteed job was given, and they yield (scale in, or wait with no GPUs) when guaranteed work arrives.
 */
export interface ElasticTierOptions extends JobModelOptions, InterJobOptions {
  /**
   * Elastic jobs also compete in the guaranteed allocation, in the order stage's order, as if rigid at their
   * requested GPUs: what it admits them to is their claim (held from guaranteed jobs later in the order), and they
   * still grow on idle GPUs. Without claims elastic jobs are purely best-effort (EasyScale's own policy).
   */
  readonly claims?: boolean;
  /** With claims: a claim never shrinks or suspends a guaranteed holder (`claims-spare-guaranteed.ts`). */
  readonly spareGuaranteed?: boolean;
}

export const DEFAULT_ELASTIC_TIER: ElasticTierOptions = { homogeneousOnly: false };

/** An elastic (EasyScale) job: it runs on any GPU count up to maxP, so it can yield GPUs and go on. */
export const isElasticJob = (job: JobState): boolean => job.spec.elastic !== undefined;
const isElastic = isElasticJob;

/**
 * Whether any job of the order is elastic. A plain loop: every stage of the tier asks it every round, and most rounds
 * of most workloads have no elastic job (a \`some\` with a callback cost each round four passes of calls).
 */
const hasElastic = (ordered: readonly JobState[]): boolean => {
  for (let i = 0; i < ordered.length; i++) if (ordered[i]!.spec.elastic !== undefined) return true;
  return false;
};

/** Elastic jobs in the order stage's order (the order stage alone decides who goes first). */
const elasticJobs = (ordered: readonly JobState[]): JobState[] => ordered.filter(isElastic);

/**
 * An elastic job as the guaranteed allocation sees it: running as an elastic job (an EST mapping) it is waiting
 * for a rigid slot; running rigid, it holds its slot like any job.
 */
const rigidView = (job: JobState): JobState =>
  isElastic(job) && job.allocation?.ests ? { ...job, status: 'queued', allocation: undefined } : job;

/** What the wrapped stages see: the guaranteed jobs and their part of the plan. */
const guaranteedOnly = (ordered: readonly JobState[], plan: Plan): [readonly JobState[], Plan] => {
  // Most rounds have no elastic job: then both are what they were (the plan holds only jobs of `ordered`).
  if (!hasElastic(ordered)) return [ordered, plan];
  const guaranteed = ordered.filter((j) => !isElastic(j));
  const ids = new Set(guaranteed.map((j) => j.spec.id));
  return [guaranteed, new Map([...plan].filter(([id]) => ids.has(id)))];
};

const heldCounts = (job: JobState, ctx: RoundContext): GpuCounts =>
  isHolding(job) ? allocationCounts(job.allocation!, ctx.hostOf) : EMPTY_COUNTS;

/** The job's intra-job model; a homogeneous job that holds GPUs stays on their type. */
export const modelOf = (job: JobState, ctx: RoundContext, options: JobModelOptions): ElasticJobModel => {
  const held = countTypes(heldCounts(job, ctx));
  return elasticJobModel(job.spec, ctx.perf, ctx.capacity, options, held.length === 1 ? held[0] : undefined);
};

/** The type holding most GPUs of a plan (ties: the faster, then the name): the allocation's `gpuType`. */
export const primaryType = (counts: GpuCounts, capability: ReadonlyMap<GpuTypeId, number>): GpuTypeId => {
  const types = countTypes(counts);
  if (types.length === 0) throw new Error('primaryType: no GPUs');
  return types.sort(
    (a, b) =>
      countOf(counts, b) - countOf(counts, a) ||
      (capability.get(b) ?? 0) - (capability.get(a) ?? 0) ||
      (a < b ? -1 : 1),
  )[0]!;
};

export const elasticAllocate = (
  inner: AllocateStage,
  options: ElasticTierOptions = DEFAULT_ELASTIC_TIER,
): AllocateStage => ({
  name: `elastic(${inner.name})`,
  // An elastic job may get 1..maxP GPUs (at least its minimum); guaranteed jobs what the inner stage gives.
  sizes: (spec, ctx) =>
    spec.elastic
      ? Array.from(
          { length: Math.max(0, spec.elastic.maxP - Math.max(1, spec.elastic.minGpus) + 1) },
          (_, i) => Math.max(1, spec.elastic!.minGpus) + i,
        )
      : (inner.sizes?.(spec, ctx) ?? [spec.gpus]),
  largestSize: (spec) => spec.elastic?.maxP ?? inner.largestSize?.(spec) ?? spec.gpus,
  smallestSize: (spec) =>
    spec.elastic ? Math.max(1, spec.elastic.minGpus) : (inner.smallestSize?.(spec) ?? spec.gpus),
  allocate: (ordered, ctx) => {
    // Most rounds of most workloads have no elastic job: the inner stage alone, on the very list it would be given.
    if (!hasElastic(ordered)) return inner.allocate(ordered, ctx);
    const admitted = !options.claims
      ? inner.allocate(
          ordered.filter((j) => !isElastic(j)),
          ctx,
        )
      : options.spareGuaranteed
        ? allocateSparingGuaranteed(inner.allocate, ordered, ordered.map(rigidView), ctx, isElastic)
        : inner.allocate(ordered.map(rigidView), ctx);
    // Elastic jobs the guaranteed allocation admitted run as it sized them (rigid, like any job in the order); the
    // others share the GPUs that are left, as best-effort elastic jobs.
    const demands = new Map(admitted);
    // Each type's capacity less what the demands take, never below zero (one pass, not one copy per demand).
    const left: Record<string, number> = Object.fromEntries([...ctx.capacity].map(([t, c]) => [t, c.gpus]));
    for (const demand of demands.values())
      left[demand.gpuType] = Math.max(0, (left[demand.gpuType] ?? 0) - demand.gpus);
    const free: GpuCounts = normalizeCounts(left);
    const memory = ctx.state.elastic?.jobs;
    const candidates: ElasticCandidate[] = elasticJobs(ordered)
      .filter((job) => !demands.has(job.spec.id))
      .map((job) => ({
        job,
        model: modelOf(job, ctx, options),
        held: heldCounts(job, ctx),
        ...(memory?.[job.spec.id] ? { memory: memory[job.spec.id] } : {}),
      }));
    const { decisions } = scheduleElastic(candidates, free, options);
    for (const c of candidates) {
      const decision = decisions.get(c.job.spec.id);
      if (!decision) continue;
      const { counts, estsPerGpu } = decision.plan;
      const elastic: ElasticDemand = { counts, estsPerGpu, reason: decision.reason };
      demands.set(
        c.job.spec.id,
        demandOf(primaryType(counts, c.model.capability), countsTotal(counts), undefined, undefined, elastic),
      );
    }
    return demands;
  },
  nextState: (ordered, plan, ctx) => {
    const state = inner.nextState ? inner.nextState(...guaranteedOnly(ordered, plan), ctx) : ctx.state;
    // No elastic job and no memory of one: nothing to remember, and the state as it is (not a copy without \`elastic\`).
    if (!hasElastic(ordered) && state.elastic === undefined) return state;
    const elastic = nextElasticMemory(ordered, plan, ctx.hostOf, state.elastic);
    return schedulerStateWith(state, { elastic });
  },
});

export const elasticPlace = (
  inner: PlaceStage,
  options: ElasticTierOptions = DEFAULT_ELASTIC_TIER,
): PlaceStage => ({
  name: `elastic(${inner.name})`,
  place: (ordered, demands, free, ctx) => {
    // Without elastic jobs (most rounds) the inner stage sees what it would see after the filtering: every job and
    // every demand, without the copies.
    if (!hasElastic(ordered)) return inner.place(ordered, guaranteedOf(demands), free, ctx);
    const guaranteedDemands = guaranteedOf(demands);
    const guaranteed = ordered.filter((j) => guaranteedDemands.has(j.spec.id) || !isElastic(j));
    const plan = inner.place(guaranteed, guaranteedDemands, free, ctx);
    for (const job of elasticJobs(ordered)) {
      const demand = demands.get(job.spec.id)?.elastic;
      if (!demand) continue;
      const allocation = placeElastic(job, demand, free, ctx, options);
      if (allocation) plan.set(job.spec.id, allocation);
    }
    return plan;
  },
  ...(inner.nextState
    ? { nextState: (ordered, plan, ctx) => inner.nextState!(...guaranteedOnly(ordered, plan), ctx) }
    : {}),
});

/** The demands without elastic ones: the very map when none is elastic (stages never modify their demands). */
const guaranteedOf = (demands: ReadonlyMap<string, Demand>): ReadonlyMap<string, Demand> => {
  for (const d of demands.values())
    if (d.elastic !== undefined) return new Map([...demands].filter(([, x]) => x.elastic === undefined));
  return demands;
};

/**
 * Concrete GPUs for an elastic demand, reserved in `free`: first the GPUs the job holds that are still free (hosts
 * where it has most GPUs first, so a scale-in keeps it consolidated), then free GPUs on hosts it already uses, then
 * the best-consolidated free GPUs of each type. When fewer GPUs are free than the counts promised (a guaranteed job
 * kept GPUs its stage had not counted), the intra-job scheduler re-plans on what was found and the rest is given
 * back; undefined when not even its minimal plan is left.
 */
export const placeElastic = (
  job: JobState,
  demand: ElasticDemand,
  free: FreeGpus,
  ctx: RoundContext,
  options: ElasticTierOptions,
): Allocation | undefined => {
  const chosen = new Map<string, number[]>();
  const want: Record<GpuTypeId, number> = { ...demand.counts };
  const take = (hostId: string, gpus: number[]): void => {
    if (gpus.length === 0) return;
    free.reserve(allocationOf(free.host(hostId)!.gpuType, [{ hostId, gpus }]));
    chosen.set(hostId, [...(chosen.get(hostId) ?? []), ...gpus]);
    const type = free.host(hostId)!.gpuType;
    want[type] = countOf(want, type) - gpus.length;
  };
  const held = isHolding(job) ? job.allocation! : undefined;
  if (held) {
    const byHostSize = [...held.slices].sort((a, b) => b.gpus.length - a.gpus.length);
    for (const slice of byHostSize) {
      const host = free.host(slice.hostId);
      if (!host) continue;
      const keep = slice.gpus
        .filter((g) => free.isFree(slice.hostId, g))
        .slice(0, countOf(want, host.gpuType));
      take(slice.hostId, keep);
    }
  }
  for (const type of countTypes(normalizeCounts(want))) {
    for (const hostId of [...chosen.keys()]) {
      const host = free.host(hostId)!;
      if (host.gpuType !== type || countOf(want, type) === 0) continue;
      const extra: number[] = [];
      for (let g = 0; g < host.gpuCount && extra.length < countOf(want, type); g++) {
        if (free.isFree(hostId, g)) extra.push(g);
      }
      take(hostId, extra);
    }
    const needed = Math.min(countOf(want, type), free.freeOf(type));
    if (needed === 0) continue;
    const found = free.find(type, needed)?.slices ?? free.firstFit(type, needed) ?? [];
    for (const slice of found) take(slice.hostId, [...slice.gpus]);
  }

  let counts = countsOfChosen(chosen, free);
  let estsPerGpu = demand.estsPerGpu;
  const model = modelOf(job, ctx, options);
  if (!countsEqual(counts, demand.counts)) {
    const plan = bestPlanWithin(model, counts, options.maxWaste);
    if (!plan || countsTotal(plan.counts) < model.minGpus) {
      releaseAll(chosen, free);
      return undefined;
    }
    giveBack(chosen, free, subtractCounts(counts, plan.counts), held);
    counts = plan.counts;
    estsPerGpu = plan.estsPerGpu;
  }

  const slices = orderSlices(chosen, held);
  const draft = allocationOf(primaryType(counts, model.capability), slices);
  const ests = estMapping(model.maxP, workerTypes(draft, ctx.hostOf), model.capability, estsPerGpu);
  if (held && sameGpus(held, draft) && sameMapping(held, slices, ests)) return held;
  return allocationOf(draft.gpuType, slices, undefined, undefined, undefined, ests);
};

const countsOfChosen = (chosen: ReadonlyMap<string, number[]>, free: FreeGpus): GpuCounts => {
  const out: Record<GpuTypeId, number> = {};
  for (const [hostId, gpus] of chosen) {
    const type = free.host(hostId)!.gpuType;
    out[type] = (out[type] ?? 0) + gpus.length;
  }
  return normalizeCounts(out);
};

const releaseAll = (chosen: ReadonlyMap<string, number[]>, free: FreeGpus): void => {
  for (const [hostId, gpus] of chosen)
    free.release(allocationOf(free.host(hostId)!.gpuType, [{ hostId, gpus }]));
};

/** Gives back `surplus` GPUs per type: newly taken ones first (last host first), then held ones. */
const giveBack = (
  chosen: Map<string, number[]>,
  free: FreeGpus,
  surplus: GpuCounts,
  held: Allocation | undefined,
): void => {
  const left: Record<GpuTypeId, number> = { ...surplus };
  const heldHosts = new Set(held?.slices.map((s) => s.hostId));
  const hosts = [...chosen.keys()]
    .reverse()
    .sort((a, b) => Number(heldHosts.has(a)) - Number(heldHosts.has(b)));
  for (const hostId of hosts) {
    const type = free.host(hostId)!.gpuType;
    const gpus = chosen.get(hostId)!;
    const n = Math.min(countOf(left, type), gpus.length);
    if (n === 0) continue;
    const dropped = gpus.slice(gpus.length - n);
    free.release(allocationOf(type, [{ hostId, gpus: dropped }]));
    left[type] = countOf(left, type) - n;
    if (n === gpus.length) chosen.delete(hostId);
    else chosen.set(hostId, gpus.slice(0, gpus.length - n));
  }
};

/** Held hosts in their old order, then new hosts in the order they were found; GPUs ascending. */
const orderSlices = (chosen: ReadonlyMap<string, number[]>, held: Allocation | undefined): HostSlice[] => {
  const rank = new Map(held?.slices.map((s, i) => [s.hostId, i]));
  for (const hostId of chosen.keys()) if (!rank.has(hostId)) rank.set(hostId, rank.size);
  return [...chosen.keys()]
    .sort((a, b) => rank.get(a)! - rank.get(b)!)
    .map((hostId) => ({ hostId, gpus: [...chosen.get(hostId)!].sort((x, y) => x - y) }));
};

/** Same workers in the same rank order with the same virtual ranks: nothing to restart. */
const sameMapping = (
  held: Allocation,
  slices: readonly HostSlice[],
  ests: readonly (readonly number[])[],
): boolean => {
  if (!held.ests || held.ests.length !== ests.length) return false;
  const a = held.slices.flatMap((s) => s.gpus.map((g) => `${s.hostId}#${g}`));
  const b = slices.flatMap((s) => s.gpus.map((g) => `${s.hostId}#${g}`));
  return (
    a.every((k, i) => k === b[i]) &&
    held.ests.every((r, i) => r.length === ests[i]!.length && r.every((v, j) => v === ests[i]![j]))
  );
};

/**
 * Any policy with the elastic tier: its allocation and placement stages keep deciding for guaranteed jobs, elastic
 * jobs get EasyScale plans on the GPUs those leave idle. Order, packing and migration stay the policy's (packing
 * already skips elastic jobs; a migration stage must leave elastic allocations alone, since their EST mapping is
 * tied to the GPUs' types).
 */
export const withElasticTier = (
  policy: Policy,
  options: ElasticTierOptions = DEFAULT_ELASTIC_TIER,
): Pick<Policy, 'allocate' | 'place'> => ({
  allocate: elasticAllocate(policy.allocate, options),
  place: elasticPlace(policy.place, options),
});
