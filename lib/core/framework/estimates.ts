import type { GpuTypeId } from '../model/gpu.ts';
import type { JobSpec } from '../model/job.ts';
import type { PerfModel, PlacementShape } from '../model/perf.ts';
import { capacityKey } from './capacity-key.ts';
import { memoKey } from './round-memo.ts';
import { scratchKey } from './scratch.ts';
import type { RoundContext, TypeCapacity } from './stages.ts';

const PRESENT_TYPES = scratchKey<readonly GpuTypeId[]>('GPU types present, sorted');

/** GPU types of the cluster this job may use, in a stable order. */
export const allowedTypes = (spec: JobSpec, ctx: RoundContext): readonly GpuTypeId[] => {
  // Asked for every job several times a round: sorted once per round.
  const present = ctx.scratch.get(PRESENT_TYPES, () => [...ctx.capacity.keys()].sort());
  if (!spec.gpuTypes || spec.gpuTypes.length === 0) return present;
  const allowed = new Set(spec.gpuTypes);
  return present.filter((t) => allowed.has(t));
};

/** The best shape `gpus` GPUs of a type can have: one machine when they fit on one, else as few hosts of one rack. */
export const bestShape = (gpus: number, capacity: TypeCapacity | undefined): PlacementShape => {
  const hostSize = Math.max(1, capacity?.largestHost ?? 1);
  return gpus <= hostSize
    ? { level: 'machine', hosts: 1 }
    : { level: 'rack', hosts: Math.ceil(gpus / hostSize) };
};

/** Estimated iterations/s of the job alone on `gpus` GPUs of `type`, consolidated as well as the cluster allows. */
export const isolatedThroughput = (spec: JobSpec, type: GpuTypeId, gpus: number, ctx: RoundContext): number =>
  ctx.perf.throughput({
    model: spec.model,
    batchSize: spec.batchSize,
    gpuType: type,
    gpus,
    shape: bestShape(gpus, ctx.capacity.get(type)),
  }).iterationsPerSecond;

/** Per round (the scratch store), per job shape (model → batch size → GPU count → allowed types): the best rate. */
type RateByShape = Map<string, Map<number, Map<number, Map<string, number>>>>;
const BEST_ISOLATED = scratchKey<RateByShape>('best isolated throughput');

/** The fastest allowed type's isolated rate; memoised per job shape and round, and per spec across rounds. */
export const bestIsolatedThroughput = (spec: JobSpec, gpus: number, ctx: RoundContext): number => {
  // Order stages ask it of every job every round: a spec keeps its answers while capacity and perf model stay.
  const known = ctx.memo.of(spec, BEST_ISOLATED_OF_SPEC, (): { entry?: SpecRates } => ({}));
  const capacity = capacityKey(ctx);
  let entry = known.entry;
  if (!entry || entry.capacity !== capacity || entry.perf !== ctx.perf) {
    entry = { capacity, perf: ctx.perf, byGpus: new Map() };
    known.entry = entry;
  }
  let rate = entry.byGpus.get(gpus);
  if (rate === undefined) {
    rate = bestIsolatedOfShape(spec, gpus, ctx);
    entry.byGpus.set(gpus, rate);
  }
  return rate;
};

interface SpecRates {
  readonly capacity: string;
  readonly perf: PerfModel;
  readonly byGpus: Map<number, number>;
}
const BEST_ISOLATED_OF_SPEC = memoKey<{ entry?: SpecRates }>('best isolated throughput of a spec');

const bestIsolatedOfShape = (spec: JobSpec, gpus: number, ctx: RoundContext): number => {
  const byModel = ctx.scratch.get(BEST_ISOLATED, (): RateByShape => new Map());
  const memo = child(child(child(byModel, spec.model), spec.batchSize), gpus);
  const key = spec.gpuTypes?.join(',') ?? '';
  let best = memo.get(key);
  if (best === undefined) {
    best = 0;
    for (const type of allowedTypes(spec, ctx))
      best = Math.max(best, isolatedThroughput(spec, type, gpus, ctx));
    memo.set(key, best);
  }
  return best;
};

/** Why a job can never run on this cluster, or undefined when some allowed type is large enough. */
export const unschedulableReason = (spec: JobSpec, ctx: RoundContext): string | undefined => {
  const types = allowedTypes(spec, ctx);
  if (types.length === 0) {
    const wanted = spec.gpuTypes?.join(', ') ?? 'any';
    return `no GPU of an allowed type (${wanted}) in cluster ${ctx.cluster.name}`;
  }
  const minGpus = spec.elastic ? Math.max(1, spec.elastic.minGpus) : spec.gpus;
  const largest = Math.max(...types.map((t) => ctx.capacity.get(t)?.gpus ?? 0));
  if (minGpus > largest) return `needs ${minGpus} GPUs of one type; the largest allowed type has ${largest}`;
  return undefined;
};

// Per round (the context object), per (model, batch, GPU count, allowed types): the types on which the job progresses.
/** Per round (the scratch store), per job shape: the types it makes progress on. */
type TypesByShape = Map<string, Map<number, Map<number, Map<string, readonly GpuTypeId[]>>>>;
const PROGRESS_TYPES = scratchKey<TypesByShape>('types a job makes progress on');

/**
 * Allowed GPU types with at least `gpus` GPUs on which the job alone on `gpus` GPUs makes progress (estimated
 * throughput > 0; zero means it does not fit in memory there). Memoised per round and job shape, so checking every
 * waiting job every round stays cheap.
 */
export const progressTypes = (spec: JobSpec, gpus: number, ctx: RoundContext): readonly GpuTypeId[] => {
  // model → batch size → GPU count → allowed types: no key string per lookup (asked for every job every round).
  const byModel = ctx.scratch.get(PROGRESS_TYPES, (): TypesByShape => new Map());
  const memo = child(child(child(byModel, spec.model), spec.batchSize), gpus);
  const key = spec.gpuTypes?.join(',') ?? '';
  let types = memo.get(key);
  if (!types) {
    types = allowedTypes(spec, ctx).filter(
      (t) => (ctx.capacity.get(t)?.gpus ?? 0) >= gpus && isolatedThroughput(spec, t, gpus, ctx) > 0,
    );
    memo.set(key, types);
  }
  return types;
};

const child = <K, C extends Map<unknown, unknown>>(map: Map<K, C>, key: K): C => {
  let next = map.get(key);
  if (!next) {
    next = new Map() as C;
    map.set(key, next);
  }
  return next;
};

/**
 * Why a job can never progress when it may be given any of `counts` GPUs: its estimated throughput is zero at each
 * count on every allowed type large enough (undefined when some allocation makes progress, or none fits at all —
 * `unschedulableReason` reports that).
 */
export const neverProgressesReason = (
  spec: JobSpec,
  counts: readonly number[],
  ctx: RoundContext,
): string | undefined => {
  const sized = allowedTypes(spec, ctx);
  const fitting = counts.filter((g) => sized.some((t) => (ctx.capacity.get(t)?.gpus ?? 0) >= g));
  if (fitting.length === 0) return undefined;
  if (fitting.some((g) => progressTypes(spec, g, ctx).length > 0)) return undefined;
  return (
    `${spec.model} (batch ${spec.batchSize}) makes no progress on ${fitting.join(' or ')} GPU(s) of any allowed ` +
    `type (${sized.join(', ')}): zero estimated throughput (it does not fit in memory)`
  );
};
