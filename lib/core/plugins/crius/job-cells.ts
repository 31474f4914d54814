import { internedKey } from '../../framework/capacity-key.ts';
import { isHolding } from '../../framework/compare.ts';
import { allowedTypes, bestShape } from '../../framework/estimates.ts';
import { memoKey } from '../../framework/round-memo.ts';
import { scratchKey } from '../../framework/scratch.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import { type JobSpec, type JobState, remainingIterations } from '../../model/job.ts';
import type { PerfModel } from '../../model/perf.ts';
import { allocationGpuCount, type Cell } from '../../model/plan.ts';
import { efficiencyKey, rateWithOwn } from './calibration.ts';
import { type CellEstimator, consolidatedLayout } from './estimator.ts';
import { calibratedHeld, type HeldCell, type HeldJob, heldJob } from './held-job.ts';
import { byValue, type Elsewhere, OwnCells } from './own-cells.ts';
import { halfFloor, twoToThe } from './power-of-two.ts';
import { makeConfig, type SharedConfigs, shapeCells } from './shared-cells.ts';
import type { CellCalibrationState } from './state.ts';

/**
 * The Cells a job may run on this round, with their calibrated estimates: Crius's cells_set for one job
 * (§6.1: counts {N/2, N, 2N} × every GPU type, each with its best stage count).
 */

export interface CellOptions {
  /** Adaptivity scaling: GPU counts {N/2, N, 2N}; off (Crius-NA): N only. */
  readonly countScaling: boolean;
  /**
   * With count scaling, for a job no host of any allowed type holds whole: also the largest power of two that fits
   * one host of a type when N/2 does not, where it is faster than N/2 (tessera; not Crius). A communication-bound job
   * that must span hosts at N or N/2 GPUs can run faster on the GPUs of one host.
   */
  readonly oneHostCount?: boolean;
  /** Heterogeneity scaling: any allowed GPU type; off (Crius-NH): the job's requested (or first) type only. */
  readonly typeScaling: boolean;
  /** Deadline-aware (Crius-DDL): only Cells that finish the job by its deadline are offered. */
  readonly deadlines: boolean;
}

export interface CellConfig {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly cell: Cell;
  /** `type|gpus|stages`: identifies the Cell for calibration. */
  readonly key: string;
  /** Calibrated iterations per second. */
  readonly rate: number;
  /** `rate` over the job's reference rate: the unit of the scheduling objective. */
  readonly value: number;
}

export interface JobCells {
  readonly job: JobState;
  /** Feasible Cells the policy allows, best value first. */
  readonly configs: readonly CellConfig[];
  /** Best raw rate at the requested count over the allowed types: what `value` is normalised by. */
  readonly reference: number;
  /** The Cell a running job holds now. */
  readonly current?: CellConfig | undefined;
  /**
   * When set, `configs` is `shared.configs` (its shape's Cells, sorted the same way) with `current` in place of the
   * entry of its type and count, and no other difference: a search may read it instead of making the job's own list.
   */
  readonly shared?: SharedCells | undefined;
  /** A running job's allocation record these Cells were made with (`held-job.ts`), when they came from one. */
  readonly heldRecord?: HeldJob | undefined;
}

/** The Cells every job of a shape shares this round (`shared-cells.ts`). */
export interface SharedCells {
  /** How many Cells (as many as the job's own list has). */
  readonly size: number;
  /** The largest value among them: exactly the value of the first of `configs`. */
  readonly best: number;
  /** Best value first; made when first read. */
  readonly configs: readonly CellConfig[];
}

export const cellKey = (gpuType: GpuTypeId, gpus: number, stages: number): string =>
  `${gpuType}|${gpus}|${stages}`;

/**
 * {⌊N/2⌋, N, 2N} with scaling, N without; N/2 only when it is at least one GPU. With `hostGpus` (the largest host of
 * the type, `oneHostCount`), also the largest power of two that fits it when ⌊N/2⌋ does not.
 */
export const countsFor = (requested: number, countScaling: boolean, hostGpus?: number): number[] => {
  if (!countScaling) return [requested];
  const half = halfFloor(requested);
  const counts = [...(half >= 1 ? [half] : []), requested, 2 * requested];
  if (hostGpus !== undefined && hostGpus >= 1 && half > hostGpus)
    counts.unshift(twoToThe(Math.floor(Math.log2(hostGpus))));
  return [...new Set(counts)];
};

/** The one type a job stays on without heterogeneity scaling: where it runs, its request, else the fastest. */
export const boundType = (
  job: JobState,
  ctx: RoundContext,
  rateAt: (type: GpuTypeId) => number,
): GpuTypeId | undefined => {
  if (isHolding(job)) return job.allocation!.gpuType;
  const allowed = allowedTypes(job.spec, ctx);
  const preferred = job.spec.preferredGpuType;
  if (preferred && allowed.includes(preferred)) return preferred;
  let best: GpuTypeId | undefined;
  let bestRate = 0;
  for (const type of allowed) {
    const r = rateAt(type);
    if (r > bestRate) {
      best = type;
      bestRate = r;
    }
  }
  return best ?? allowed[0];
};

export interface Raw {
  readonly rate: number;
  readonly cell: Cell;
  readonly stages: number;
}

/** Raw (uncalibrated) best Cell of a job on `gpus` GPUs of `type`: the layer-chain estimate, else the perf model. */
export const rawCell = (
  job: JobState,
  type: GpuTypeId,
  gpus: number,
  ctx: RoundContext,
  estimator: CellEstimator,
): Raw | undefined => {
  const capacity = ctx.capacity.get(type);
  if (!capacity || gpus > capacity.gpus) return undefined;
  if (estimator.layered(job.spec.model)) {
    const e = estimator.best({
      model: job.spec.model,
      batchSize: job.spec.batchSize,
      gpuType: type,
      gpus,
      layout: consolidatedLayout(gpus, capacity.largestHost),
    });
    return e.feasible && e.cell
      ? { rate: e.iterationsPerSecond, cell: e.cell, stages: e.cell.stageGpus.length }
      : undefined;
  }
  const rate = ctx.perf.throughput({
    model: job.spec.model,
    batchSize: job.spec.batchSize,
    gpuType: type,
    gpus,
    shape: bestShape(gpus, capacity),
  }).iterationsPerSecond;
  return rate > 0
    ? { rate, cell: { gpuType: type, gpus, stageGpus: [gpus], parallelism: ['dp'] }, stages: 1 }
    : undefined;
};

/** Whether `rawCurrent` estimates the held Cell as `rawCell` does (the type and count's best Cell). */
const rawCellOfHeld = (job: JobState, ctx: RoundContext, estimator: CellEstimator, gpus: number): boolean => {
  const allocation = job.allocation!;
  const cell = allocation.cell;
  return (
    !cell || cell.gpus !== gpus || !estimator.layered(job.spec.model) || !ctx.capacity.get(allocation.gpuType)
  );
};

/** The job's static Cell of `type` × `gpus`, if its set offers one: `rawCell` of that type and count. */
const staticOf = (statics: StaticCells, type: GpuTypeId, gpus: number): StaticCell | undefined => {
  for (const r of statics.raws) if (r.type === type && r.gpus === gpus) return r;
  return undefined;
};

/** Raw rate of the Cell a running job holds (its own stages), or undefined when it holds none we can estimate. */
const rawCurrent = (job: JobState, ctx: RoundContext, estimator: CellEstimator): Raw | undefined => {
  const allocation = job.allocation!;
  const gpus = allocationGpuCount(allocation);
  const cell = allocation.cell;
  const capacity = ctx.capacity.get(allocation.gpuType);
  if (!cell || cell.gpus !== gpus || !estimator.layered(job.spec.model) || !capacity) {
    return rawCell(job, allocation.gpuType, gpus, ctx, estimator);
  }
  const e = estimator.estimate({
    model: job.spec.model,
    batchSize: job.spec.batchSize,
    gpuType: allocation.gpuType,
    gpus,
    stages: cell.stageGpus.length,
    layout: consolidatedLayout(gpus, capacity.largestHost),
  });
  return e.feasible ? { rate: e.iterationsPerSecond, cell, stages: cell.stageGpus.length } : undefined;
};

/** Whether running at `rate` from now (after a restart unless `stays`) finishes the job by its deadline. */
export const meetsDeadline = (job: JobState, rate: number, ctx: RoundContext, stays: boolean): boolean => {
  const deadline = job.spec.deadline;
  if (deadline === undefined) return true;
  if (!(rate > 0)) return false;
  // Moving costs a restart; so does resuming a suspended job from its checkpoint, but not a first start.
  const restart = stays || (!isHolding(job) && job.progress === 0) ? 0 : ctx.config.restartSeconds;
  return ctx.now + restart + remainingIterations(job) / rate <= deadline;
};

export interface StaticCell {
  readonly type: GpuTypeId;
  readonly gpus: number;
  readonly raw: Raw;
  /** Its `cellKey` and calibration `efficiencyKey`, made once. */
  readonly key: string;
  readonly efficiencyKey: string;
}

export interface StaticCells {
  /** Every allowed type × count with a feasible Cell, uncalibrated. */
  readonly raws: readonly StaticCell[];
  readonly reference: number;
  /** Per type (in the order of `raws`): its efficiency key and its largest raw rate (`shared-cells.ts`'s best value). */
  readonly typeBest: readonly { readonly efficiencyKey: string; readonly rate: number }[];
  /**
   * The last calibrated Cells of this set (`sharedConfigs`), the calibration's efficiency record they were made with
   * (or one found to hold the same factors since) and each raw Cell's factor: they stand while the factors do.
   */
  lastShared?: {
    efficiency: Readonly<Record<string, number>> | undefined;
    readonly factors: readonly number[];
    readonly shared: SharedConfigs;
  };
  /** The last `shapeCells` view of this set and the efficiency record it was made for. */
  lastView?: {
    readonly efficiency: Readonly<Record<string, number>> | undefined;
    readonly view: SharedCells;
  };
}

type CountOptions = Pick<CellOptions, 'countScaling' | 'oneHostCount'>;

/** A job's raw Cells for one capacity key, and the perf model and estimator they were made with. */
interface StaticEntry {
  readonly perf: PerfModel;
  readonly estimator: CellEstimator;
  readonly cells: StaticCells;
}

// Raw Cells depend only on the job's spec, the cluster's capacity, the perf model and the estimator: made once,
// reused every round the shell carries the memo (per spec: capacity key → entry).
const STATIC_CELLS = memoKey<(SpecStatics | undefined)[]>('crius raw cells');

/** A spec's raw Cells for one capacity key (a slot per count option: without scaling, with it, with one-host counts). */
interface SpecStatics extends StaticEntry {
  readonly capacity: string;
}
type CapacityKeys = readonly [string, string, string];
const CAPACITY_KEY = scratchKey<CapacityKeys>('capacity key');

/** Per capacity object (one per cluster object: the round's cluster index): its keys, made once. */
const CAPACITY_KEYS = memoKey<CapacityKeys>('crius capacity keys');

/**
 * The round's capacity as a key, without count scaling, with it, and with it and one-host counts: looked up once per
 * round, not once per job, and made once per capacity (a function of its types and counts alone), not every round.
 */
const capacityKey = (ctx: RoundContext): CapacityKeys =>
  ctx.scratch.get(CAPACITY_KEY, () => ctx.memo.of(ctx.capacity, CAPACITY_KEYS, () => keysOf(ctx)));

const keysOf = (ctx: RoundContext): CapacityKeys => {
  const capacity = [...ctx.capacity].map(([t, c]) => `${t}:${c.gpus}:${c.largestHost}`).join(',');
  return [
    internedKey(ctx, `${capacity}|false`),
    internedKey(ctx, `${capacity}|true`),
    internedKey(ctx, `${capacity}|true|one-host`),
  ];
};

/** Which raw Cells the count options ask for: without count scaling, with it, with it and one-host counts. */
const countSlot = (counts: CountOptions): 0 | 1 | 2 =>
  counts.countScaling ? (counts.oneHostCount ? 2 : 1) : 0;

/** One-host counts only for a job no host of any allowed type holds whole (else a type offers it consolidated). */
export const offersOneHostCounts = (
  spec: JobSpec,
  types: readonly GpuTypeId[],
  ctx: RoundContext,
  counts: Pick<CountOptions, 'oneHostCount'>,
): boolean =>
  counts.oneHostCount === true && types.every((t) => (ctx.capacity.get(t)?.largestHost ?? 0) < spec.gpus);

/** The job's raw Cells for the round's capacity and count options, uncalibrated (every job of its shape shares them). */
export const staticCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  counts: CountOptions,
): StaticCells => {
  const perSpec = ctx.memo.of(job.spec, STATIC_CELLS, () => [undefined, undefined, undefined]);
  const slot = countSlot(counts);
  const key = capacityKey(ctx)[slot];
  const known = perSpec[slot];
  if (known && known.capacity === key && known.perf === ctx.perf && known.estimator === estimator)
    return known.cells;
  // Jobs of one shape (model, batch size, GPU count, allowed types) share one object: the round can then calibrate
  // their Cells once for all of them (`sharedConfigs`).
  const spec = job.spec;
  const byShape = ctx.memo.of(estimator, CELLS_BY_SHAPE, () => new Map());
  const shape = `${key}|${spec.model}|${spec.batchSize}|${spec.gpus}|${spec.gpuTypes?.join(',') ?? ''}`;
  let shared = byShape.get(shape);
  if (!shared || shared.perf !== ctx.perf) {
    shared = { perf: ctx.perf, estimator, cells: makeStaticCells(job, ctx, estimator, counts) };
    byShape.set(shape, shared);
  }
  perSpec[slot] = { ...shared, capacity: key };
  return shared.cells;
};

/** Per estimator: raw Cells by capacity key and job shape. */
const CELLS_BY_SHAPE = memoKey<Map<string, StaticEntry>>('crius raw cells by job shape');

const makeStaticCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  counts: CountOptions,
): StaticCells => {
  const spec = job.spec;
  const raws: StaticCell[] = [];
  let reference = 0;
  const types = allowedTypes(spec, ctx);
  const spans = offersOneHostCounts(spec, types, ctx, counts);
  const half = Math.floor(spec.gpus / 2);
  for (const type of types) {
    const hostGpus = spans ? ctx.capacity.get(type)?.largestHost : undefined;
    for (const gpus of countsFor(spec.gpus, counts.countScaling, hostGpus)) {
      const raw = rawCell(job, type, gpus, ctx, estimator);
      if (!raw) continue;
      // A one-host count is offered only where it is faster than half the request (a communication-bound job), never
      // as one more way to shrink a job under contention.
      if (gpus < half && !(raw.rate > (rawCell(job, type, half, ctx, estimator)?.rate ?? 0))) continue;
      raws.push({
        type,
        gpus,
        raw,
        key: cellKey(type, gpus, raw.stages),
        efficiencyKey: efficiencyKey(spec.model, type),
      });
      if (gpus === spec.gpus) reference = Math.max(reference, raw.rate);
    }
  }
  if (reference <= 0) reference = Math.max(0, ...raws.map((r) => r.raw.rate));
  return { raws, reference, typeBest: typeBest(raws) };
};

/** Each type's efficiency key and largest raw rate, in the order the types come in `raws` (consecutive per type). */
const typeBest = (raws: readonly StaticCell[]): { efficiencyKey: string; rate: number }[] => {
  const out: { efficiencyKey: string; rate: number }[] = [];
  for (const r of raws) {
    const last = out[out.length - 1];
    if (last && last.efficiencyKey === r.efficiencyKey) last.rate = Math.max(last.rate, r.raw.rate);
    else out.push({ efficiencyKey: r.efficiencyKey, rate: r.raw.rate });
  }
  return out;
};

/** Every Cell of a job the policy allows this round, calibrated and normalised. */
export const jobCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  options: CellOptions,
  /** `roundCapacityKeys(ctx)`, when the caller holds them (one lookup per round, not one per job). */
  keys: CapacityKeys = capacityKey(ctx),
): JobCells => {
  const spec = job.spec;
  const fromSharedCells = options.typeScaling && !(options.deadlines && spec.deadline !== undefined);
  // A running job: one lookup of its allocation's record gives its raw Cells and its held Cell.
  if (fromSharedCells && isHolding(job)) {
    const record = heldJob(job, ctx, estimator, keys[0]);
    const key = keys[countSlot(options)];
    if (record.staticsKey !== key || !record.statics) {
      record.statics = staticCells(job, ctx, estimator, options);
      record.staticsKey = key;
    }
    return fromShared(job, ctx, estimator, record.statics, record);
  }
  const statics = staticCells(job, ctx, estimator, options);
  const all = statics.raws;
  if (fromSharedCells) return fromShared(job, ctx, estimator, statics);
  let raws = all;
  if (!options.typeScaling) {
    const bound = boundType(
      job,
      ctx,
      (t) => all.find((r) => r.type === t && r.gpus === spec.gpus)?.raw.rate ?? 0,
    );
    raws = all.filter((r) => r.type === bound);
  }
  return calibrated(job, ctx, estimator, statics, raws, options);
};

/** The job's Cells among `raws`, calibrated, normalised and filtered by deadline, best value first. */
const calibrated = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  raws: readonly StaticCell[],
  options: CellOptions,
): JobCells => {
  const spec = job.spec;
  const calibration = ctx.state.cellCalibration;
  const { reference } = statics;
  const current = currentConfig(job, ctx, estimator, statics);
  // One pass, no intermediate arrays: this runs for every job every round.
  const configs: CellConfig[] = [];
  for (const r of raws) {
    const c =
      current && r.type === current.gpuType && r.gpus === current.gpus
        ? current
        : makeConfig(calibration, spec.id, r.type, r.gpus, r.raw, reference, r.key, r.efficiencyKey);
    if (!options.deadlines || meetsDeadline(job, c.rate, ctx, c === current)) configs.push(c);
  }
  configs.sort(byValue);
  return { job, configs, reference, ...(current ? { current } : {}) };
};

/** The Cell a running job holds, calibrated; undefined for a waiting job or one whose Cell cannot be estimated. */
const currentConfig = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  record?: HeldJob,
): CellConfig | undefined => {
  if (!isHolding(job)) return undefined;
  const calibration = ctx.state.cellCalibration;
  return heldConfig(job, ctx, estimator, statics, record, calibration?.cells[job.spec.id]);
};

/** `currentConfig` of a holding job, with its record (if already looked up) and its own calibration entry. */
const heldConfig = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  record: HeldJob | undefined,
  own: { readonly cell: string; readonly ratio: number } | undefined,
): CellConfig | undefined => {
  const held = heldCell(job, ctx, estimator, statics, record);
  if (!held) return undefined;
  const rate = rateWithOwn(ctx.state.cellCalibration, own, held.key, held.efficiency, held.raw.rate);
  return calibratedHeld(
    record ?? heldJob(job, ctx, estimator, capacityKey(ctx)[0]),
    held,
    rate,
    statics.reference,
  );
};

/** The raw Cell a running job holds, with its keys, from its allocation's record (made there on first use). */
const heldCell = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  known?: HeldJob,
): HeldCell | undefined => {
  const record = known ?? heldJob(job, ctx, estimator, capacityKey(ctx)[0]);
  if (!record.heldMade) {
    const allocation = job.allocation!;
    const gpus = allocationGpuCount(allocation);
    const estimate = heldRaw(job, ctx, estimator, statics, gpus);
    record.held = estimate && { gpuType: allocation.gpuType, gpus, ...estimate };
    // Nothing to estimate is not kept: a later round tries again (as before the record existed).
    record.heldMade = record.held !== undefined;
  }
  return record.held;
};

/** The held Cell's uncalibrated estimate and keys, or undefined when it holds none we can estimate. */
const heldRaw = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  gpus: number,
): Pick<HeldCell, 'raw' | 'key' | 'efficiency'> | undefined => {
  const type = job.allocation!.gpuType;
  const same = rawCellOfHeld(job, ctx, estimator, gpus) ? staticOf(statics, type, gpus) : undefined;
  // The job's statics already hold this very estimate and its keys: shared, not made again per job (cold rounds).
  if (same) return { raw: same.raw, key: same.key, efficiency: same.efficiencyKey };
  const raw = rawCurrent(job, ctx, estimator);
  if (!raw) return undefined;
  return { raw, key: cellKey(type, gpus, raw.stages), efficiency: efficiencyKey(job.spec.model, type) };
};

/**
 * Every Cell of the job, without a deadline filter, from the Cells every job of its shape shares this round: those
 * differ from the job's own only in the Cell it holds and the one its own calibration was observed on. The order
 * (value, then GPUs, then type) is total, so re-sorting after replacing them gives what `calibrated` gives
 * (`OwnCells`, which makes the job's list only when it is read).
 */
const fromShared = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
  record?: HeldJob,
): JobCells => {
  const calibration = ctx.state.cellCalibration;
  const shared = shapeCells(calibration, statics);
  const { reference } = statics;
  const own = calibration?.cells[job.spec.id];
  const current = isHolding(job) ? heldConfig(job, ctx, estimator, statics, record, own) : undefined;
  if (!own && !current) return { job, configs: shared.configs, reference };
  // A running job's own ratio is usually of the Cell it holds: that Cell is then the only one to replace (no other
  // Cell has its key), and no key needs comparing.
  const ownElsewhere = own !== undefined && !(current !== undefined && own.cell === current.key);
  return new OwnCells(
    job,
    reference,
    current,
    shared,
    ownElsewhere ? ownCell(calibration!, job, reference) : undefined,
    record,
  );
};

/** The job's own calibrated Cell where its own ratio was observed, other than the Cell it holds (`Elsewhere`). */
const ownCell =
  (calibration: CellCalibrationState, job: JobState, reference: number): Elsewhere =>
  ({ configs, sources }, current) => {
    const own = calibration.cells[job.spec.id]!;
    for (let i = 0; i < configs.length; i++) {
      const c = configs[i]!;
      if (current && c.gpuType === current.gpuType && c.gpus === current.gpus) continue;
      if (own.cell !== c.key) continue;
      const r = sources[i]!;
      const config = makeConfig(
        calibration,
        job.spec.id,
        r.type,
        r.gpus,
        r.raw,
        reference,
        r.key,
        r.efficiencyKey,
      );
      return { index: i, config };
    }
    return undefined;
  };

/** The round's capacity keys (`jobCells`'s `keys`). */
export const roundCapacityKeys = (ctx: RoundContext): CapacityKeys => capacityKey(ctx);

/** The round's capacity key the records of held Cells are made for (`heldJob`'s `capacity`). */
export const heldCapacityKey = (ctx: RoundContext): string => capacityKey(ctx)[0];

/**
 * `estimate(job, ctx, estimator)` of the Cell a running job holds, kept on its allocation's `record` across rounds:
 * the estimate is a function of the allocation, the spec, the capacity, the perf model and estimator.
 */
export const heldEstimate = (
  record: HeldJob,
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  estimate: (job: JobState, ctx: RoundContext, estimator: CellEstimator) => number | undefined,
): number | undefined => {
  if (!record.estimatedMade) {
    record.estimated = estimate(job, ctx, estimator);
    record.estimatedMade = true;
  }
  return record.estimated;
};
