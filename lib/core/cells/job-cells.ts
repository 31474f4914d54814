import { allowedTypes, bestShape } from '../allocate/estimates.ts';
import { memoKey } from '../framework/round-memo.ts';
import { scratchKey } from '../framework/scratch.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import { type JobState, remainingIterations } from '../model/job.ts';
import type { PerfModel } from '../model/perf.ts';
import { allocationGpuCount, type Cell } from '../model/plan.ts';
import type { CellCalibrationState } from '../model/state.ts';
import { isHolding } from '../order/compare.ts';
import type { RoundContext } from '../stages.ts';
import { calibratedRateOf, efficiencyKey } from './calibration.ts';
import { type CellEstimator, consolidatedLayout } from './estimator.ts';

/**
 * The Cells a job may run on this round, with their calibrated estimates: Crius's cells_set for one job
 * (§6.1: counts {N/2, N, 2N} × every GPU type, each with its best stage count).
 */

export interface CellOptions {
  /** Adaptivity scaling: GPU counts {N/2, N, 2N}; off (Crius-NA): N only. */
  readonly countScaling: boolean;
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

/** {⌊N/2⌋, N, 2N} with scaling, N without; N/2 only when it is at least one GPU. */
export const countsFor = (requested: number, countScaling: boolean): number[] => {
  if (!countScaling) return [requested];
  const half = Math.floor(requested / 2);
  return [...new Set([...(half >= 1 ? [half] : []), requested, 2 * requested])];
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
}

/** A job's raw Cells for one capacity key, and the perf model and estimator they were made with. */
interface StaticEntry {
  readonly perf: PerfModel;
  readonly estimator: CellEstimator;
  readonly cells: StaticCells;
}

// Raw Cells depend only on the job's spec, the cluster's capacity, the perf model and the estimator: made once,
// reused every round the shell carries the memo (per spec: capacity key → entry).
const STATIC_CELLS = memoKey<Map<string, StaticEntry>>('crius raw cells');
const CAPACITY_KEY = scratchKey<readonly [string, string]>('capacity key');

/** The round's capacity as a key, without and with count scaling: made once per round, not once per job. */
const capacityKey = (ctx: RoundContext): readonly [string, string] =>
  ctx.scratch.get(CAPACITY_KEY, () => {
    const capacity = [...ctx.capacity].map(([t, c]) => `${t}:${c.gpus}:${c.largestHost}`).join(',');
    return [`${capacity}|false`, `${capacity}|true`];
  });

const staticCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  countScaling: boolean,
): StaticCells => {
  const perSpec = ctx.memo.of(job.spec, STATIC_CELLS, () => new Map());
  const key = capacityKey(ctx)[countScaling ? 1 : 0];
  const known = perSpec.get(key);
  if (known && known.perf === ctx.perf && known.estimator === estimator) return known.cells;
  // Jobs of one shape (model, batch size, GPU count, allowed types) share one object: the round can then calibrate
  // their Cells once for all of them (`sharedConfigs`).
  const spec = job.spec;
  const byShape = ctx.memo.of(estimator, CELLS_BY_SHAPE, () => new Map());
  const shape = `${key}|${spec.model}|${spec.batchSize}|${spec.gpus}|${spec.gpuTypes?.join(',') ?? ''}`;
  let shared = byShape.get(shape);
  if (!shared || shared.perf !== ctx.perf) {
    shared = { perf: ctx.perf, estimator, cells: makeStaticCells(job, ctx, estimator, countScaling) };
    byShape.set(shape, shared);
  }
  perSpec.set(key, shared);
  return shared.cells;
};

/** Per estimator: raw Cells by capacity key and job shape. */
const CELLS_BY_SHAPE = memoKey<Map<string, StaticEntry>>('crius raw cells by job shape');

const makeStaticCells = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  countScaling: boolean,
): StaticCells => {
  const spec = job.spec;
  const raws: StaticCell[] = [];
  let reference = 0;
  for (const type of allowedTypes(spec, ctx)) {
    for (const gpus of countsFor(spec.gpus, countScaling)) {
      const raw = rawCell(job, type, gpus, ctx, estimator);
      if (!raw) continue;
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
  const calibration = ctx.state.cellCalibration;
  const statics = staticCells(job, ctx, estimator, options.countScaling);
  const { raws: all, reference } = statics;
  // A waiting job without its own calibration has the Cells of every such job of its shape: calibrated once a round.
  const shareable =
    options.typeScaling &&
    !isHolding(job) &&
    !(options.deadlines && spec.deadline !== undefined) &&
    calibration?.cells[spec.id] === undefined;
  if (shareable) {
    const byStatics =
      ctx.scratch.get(SHARED_CONFIGS, () => new Map()).get(calibration) ?? newShared(ctx, calibration);
    let configs = byStatics.get(statics);
    if (!configs) {
      configs = calibrated(job, ctx, estimator, statics, all, options).configs;
      byStatics.set(statics, configs);
    }
    return { job, configs, reference };
  }
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

// Per round and calibration state (`nextState` may see another): the calibrated Cells each shared raw-Cell set gives.
const SHARED_CONFIGS =
  scratchKey<Map<CellCalibrationState | undefined, Map<StaticCells, CellConfig[]>>>('crius configs by shape');

const newShared = (
  ctx: RoundContext,
  calibration: CellCalibrationState | undefined,
): Map<StaticCells, CellConfig[]> => {
  const made = new Map<StaticCells, CellConfig[]>();
  ctx.scratch.get(SHARED_CONFIGS, () => new Map()).set(calibration, made);
  return made;
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
  const make = (
    type: GpuTypeId,
    gpus: number,
    raw: Raw,
    key = cellKey(type, gpus, raw.stages),
    efficiency = efficiencyKey(spec.model, type),
  ): CellConfig => {
    const rate = calibratedRateOf(calibration, spec.id, key, efficiency, raw.rate);
    return { gpuType: type, gpus, cell: raw.cell, key, rate, value: reference > 0 ? rate / reference : 0 };
  };
  let current: CellConfig | undefined;
  if (isHolding(job)) {
    const raw = rawCurrent(job, ctx, estimator);
    const allocation = job.allocation!;
    if (raw) current = make(allocation.gpuType, allocationGpuCount(allocation), raw);
  }
  // One pass, no intermediate arrays: this runs for every job every round.
  const configs: CellConfig[] = [];
  for (const r of raws) {
    const c =
      current && r.type === current.gpuType && r.gpus === current.gpus
        ? current
        : make(r.type, r.gpus, r.raw, r.key, r.efficiencyKey);
    if (!options.deadlines || meetsDeadline(job, c.rate, ctx, c === current)) configs.push(c);
  }
  configs.sort((a, b) => b.value - a.value || a.gpus - b.gpus || (a.gpuType < b.gpuType ? -1 : 1));
  return { job, configs, reference, ...(current ? { current } : {}) };
};
