import { internedKey } from '../../framework/capacity-key.ts';
import { isHolding } from '../../framework/compare.ts';
import { allowedTypes, bestShape } from '../../framework/estimates.ts';
import { memoKey } from '../../framework/round-memo.ts';
import { type RoundScratch, scratchKey } from '../../framework/scratch.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import { type JobSpec, type JobState, remainingIterations } from '../../model/job.ts';
import type { PerfModel } from '../../model/perf.ts';
import { allocationGpuCount, type Cell } from '../../model/plan.ts';
import { calibratedRateOf, efficiencyKey, modelCalibratedRate } from './calibration.ts';
import { type CellEstimator, consolidatedLayout } from './estimator.ts';
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
  readonly current?: CellConfig;
}

export const cellKey = (gpuType: GpuTypeId, gpus: number, stages: number): string =>
  `${gpuType}|${gpus}|${stages}`;

/**
 * {⌊N/2⌋, N, 2N} with scaling, N without; N/2 only when it is at least one GPU. With `hostGpus` (the largest host of
 * the type, `oneHostCount`), also the largest power of two that fits it when ⌊N/2⌋ does not.
 */
export const countsFor = (requested: number, countScaling: boolean, hostGpus?: number): number[] => {
  if (!countScaling) return [requested];
  const half = Math.floor(requested / 2);
  const counts = [...(half >= 1 ? [half] : []), requested, 2 * requested];
  if (hostGpus !== undefined && hostGpus >= 1 && half > hostGpus)
    counts.unshift(2 ** Math.floor(Math.log2(hostGpus)));
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

interface Raw {
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

interface StaticCell {
  readonly type: GpuTypeId;
  readonly gpus: number;
  readonly raw: Raw;
  /** Its `cellKey` and calibration `efficiencyKey`, made once. */
  readonly key: string;
  readonly efficiencyKey: string;
}

interface StaticCells {
  /** Every allowed type × count with a feasible Cell, uncalibrated. */
  readonly raws: readonly StaticCell[];
  readonly reference: number;
  /** The last round's calibrated Cells of this set (`sharedConfigs`), stamped with that round's scratch store. */
  lastShared?: {
    readonly scratch: RoundScratch;
    readonly calibration: unknown;
    readonly shared: SharedConfigs;
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
const CAPACITY_KEY = scratchKey<readonly [string, string, string]>('capacity key');

/**
 * The round's capacity as a key, without count scaling, with it, and with it and one-host counts: made once per
 * round, not once per job.
 */
const capacityKey = (ctx: RoundContext): readonly [string, string, string] =>
  ctx.scratch.get(CAPACITY_KEY, () => {
    const capacity = [...ctx.capacity].map(([t, c]) => `${t}:${c.gpus}:${c.largestHost}`).join(',');
    return [
      internedKey(ctx, `${capacity}|false`),
      internedKey(ctx, `${capacity}|true`),
      internedKey(ctx, `${capacity}|true|one-host`),
    ];
  });

const staticCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  counts: CountOptions,
): StaticCells => {
  const perSpec = ctx.memo.of(job.spec, STATIC_CELLS, () => [undefined, undefined, undefined]);
  const slot = counts.countScaling ? (counts.oneHostCount ? 2 : 1) : 0;
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
  // One-host counts only for a job no host of any allowed type holds whole (else a type offers it consolidated).
  const spans =
    counts.oneHostCount && types.every((t) => (ctx.capacity.get(t)?.largestHost ?? 0) < spec.gpus);
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
  return { raws, reference };
};

/** Every Cell of a job the policy allows this round, calibrated and normalised. */
export const jobCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  options: CellOptions,
): JobCells => {
  const spec = job.spec;
  const statics = staticCells(job, ctx, estimator, options);
  const all = statics.raws;
  if (options.typeScaling && !(options.deadlines && spec.deadline !== undefined))
    return fromShared(job, ctx, estimator, statics);
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

/**
 * A calibrated Cell of a job: the job's own ratio when it was observed on this very Cell, else its model's (always
 * its model's without a job id).
 */
const config = (
  calibration: CellCalibrationState | undefined,
  jobId: string | undefined,
  type: GpuTypeId,
  gpus: number,
  raw: Raw,
  reference: number,
  key: string,
  efficiency: string,
): CellConfig => {
  const rate =
    jobId === undefined
      ? modelCalibratedRate(calibration, efficiency, raw.rate)
      : calibratedRateOf(calibration, jobId, key, efficiency, raw.rate);
  return { gpuType: type, gpus, cell: raw.cell, key, rate, value: reference > 0 ? rate / reference : 0 };
};

const byValue = (a: CellConfig, b: CellConfig): number =>
  b.value - a.value || a.gpus - b.gpus || (a.gpuType < b.gpuType ? -1 : 1);

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
        : config(calibration, spec.id, r.type, r.gpus, r.raw, reference, r.key, r.efficiencyKey);
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
): CellConfig | undefined => {
  if (!isHolding(job)) return undefined;
  const { reference } = statics;
  const held = heldCell(job, ctx, estimator, statics);
  if (!held) return undefined;
  const { gpuType, gpus, raw, key, efficiency } = held;
  return config(ctx.state.cellCalibration, job.spec.id, gpuType, gpus, raw, reference, key, efficiency);
};

/** The raw Cell a running job holds, with its keys, and what it was made from (so a later round may reuse it). */
/** What a memo entry kept on an allocation was computed from: it is reused only while all of them are the same. */
interface HeldInputs {
  readonly spec: JobSpec;
  readonly capacity: string;
  readonly perf: PerfModel;
  readonly estimator: CellEstimator;
}

const computedFrom = (
  known: HeldInputs | undefined,
  job: JobState,
  capacity: string,
  ctx: RoundContext,
  estimator: CellEstimator,
): boolean =>
  known !== undefined &&
  known.spec === job.spec &&
  known.capacity === capacity &&
  known.perf === ctx.perf &&
  known.estimator === estimator;

interface HeldCell extends HeldInputs {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly raw: Raw;
  readonly key: string;
  readonly efficiency: string;
}

// Per allocation object (a running job keeps its allocation from round to round): the Cell it holds, uncalibrated.
const HELD_CELL = memoKey<{ entry?: HeldCell | undefined }>('crius held cell');

const heldCell = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
): HeldCell | undefined => {
  const allocation = job.allocation!;
  const slot = ctx.memo.of(allocation, HELD_CELL, (): { entry?: HeldCell } => ({}));
  const capacity = capacityKey(ctx)[0];
  const known = slot.entry;
  if (known && computedFrom(known, job, capacity, ctx, estimator)) return known;
  const gpus = allocationGpuCount(allocation);
  const estimate = heldRaw(job, ctx, estimator, statics, gpus);
  slot.entry = estimate && {
    spec: job.spec,
    capacity,
    perf: ctx.perf,
    estimator,
    gpuType: allocation.gpuType,
    gpus,
    ...estimate,
  };
  return slot.entry;
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
 * (value, then GPUs, then type) is total, so re-sorting after replacing them gives what `calibrated` gives.
 */
const fromShared = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  statics: StaticCells,
): JobCells => {
  const calibration = ctx.state.cellCalibration;
  const shared = sharedConfigs(ctx, statics);
  const { reference } = statics;
  const own = calibration?.cells[job.spec.id];
  const current = currentConfig(job, ctx, estimator, statics);
  if (!own && !current) return { job, configs: shared.configs, reference };
  // A running job's own ratio is usually of the Cell it holds: that Cell is then the only one to replace (no other
  // Cell has its key), and no key needs comparing.
  const ownElsewhere = own !== undefined && !(current !== undefined && own.cell === current.key);
  let configs: CellConfig[] | undefined;
  for (let i = 0; i < shared.configs.length; i++) {
    const c = shared.configs[i]!;
    let mine: CellConfig | undefined;
    if (current && c.gpuType === current.gpuType && c.gpus === current.gpus) mine = current;
    else if (ownElsewhere && own.cell === c.key) {
      const r = shared.sources[i]!;
      mine = config(calibration, job.spec.id, r.type, r.gpus, r.raw, reference, r.key, r.efficiencyKey);
    }
    if (!mine) continue;
    configs ??= [...shared.configs];
    configs[i] = mine;
  }
  if (configs) sortNearlySorted(configs);
  return current
    ? { job, configs: configs ?? shared.configs, reference, current }
    : { job, configs: configs ?? shared.configs, reference };
};

/**
 * `configs.sort(byValue)` for an array sorted but for one or two replaced entries, by insertion (a few comparisons
 * instead of a general sort per job and round). `byValue` is a total order on a job's Cells (no two share type and
 * count), so the result is the one any sort gives.
 */
const sortNearlySorted = (configs: CellConfig[]): void => {
  for (let i = 1; i < configs.length; i++) {
    const c = configs[i]!;
    let j = i - 1;
    if (byValue(configs[j]!, c) <= 0) continue;
    while (j >= 0 && byValue(configs[j]!, c) > 0) {
      configs[j + 1] = configs[j]!;
      j--;
    }
    configs[j + 1] = c;
  }
};

interface SharedConfigs {
  /** Calibrated by the model's efficiency alone (no job's own ratio), best value first. */
  readonly configs: readonly CellConfig[];
  /** The raw Cell behind each config. */
  readonly sources: readonly StaticCell[];
}

// Per round (the scratch store is the round's stamp) and calibration state: the calibrated Cells of a raw-Cell set.
const sharedConfigs = (ctx: RoundContext, statics: StaticCells): SharedConfigs => {
  const calibration = ctx.state.cellCalibration;
  const last = statics.lastShared;
  if (last && last.scratch === ctx.scratch && last.calibration === calibration) return last.shared;
  // Configs and their sources sorted together by insertion (a dozen Cells at most: no pair objects, no closures).
  const configs: CellConfig[] = [];
  const sources: StaticCell[] = [];
  for (const r of statics.raws) {
    const c = config(
      calibration,
      undefined,
      r.type,
      r.gpus,
      r.raw,
      statics.reference,
      r.key,
      r.efficiencyKey,
    );
    let j = configs.length;
    for (; j > 0 && byValue(configs[j - 1]!, c) > 0; j--) {
      configs[j] = configs[j - 1]!;
      sources[j] = sources[j - 1]!;
    }
    configs[j] = c;
    sources[j] = r;
  }
  const shared = { configs, sources };
  statics.lastShared = { scratch: ctx.scratch, calibration, shared };
  return shared;
};

/** Per allocation object: an uncalibrated estimate of the Cell it holds, and what it was made from. */
interface HeldEstimate extends HeldInputs {
  readonly rate: number | undefined;
}
const HELD_ESTIMATE = memoKey<{ entry?: HeldEstimate }>('crius held estimate');

/**
 * `estimate()` of the Cell a running job holds, memoised per allocation object across rounds (a running job keeps its
 * allocation): the estimate is a function of the allocation, the spec, the capacity, the perf model and estimator.
 */
export const heldEstimate = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  estimate: () => number | undefined,
): number | undefined => {
  const slot = ctx.memo.of(job.allocation!, HELD_ESTIMATE, (): { entry?: HeldEstimate } => ({}));
  const capacity = capacityKey(ctx)[0];
  const known = slot.entry;
  if (known && computedFrom(known, job, capacity, ctx, estimator)) return known.rate;
  const rate = estimate();
  slot.entry = { spec: job.spec, capacity, perf: ctx.perf, estimator, rate };
  return rate;
};
