import type { CellCalibrationState } from './state.ts';

/**
 * Calibration of Cell estimates from observed throughput (specs/crius.md §6): the agents (or the simulator's
 * executor) report each running job's iterations per second; the ratio measured ÷ estimated corrects
 * - that job's estimate on that Cell (an EWMA per job and Cell), and
 * - every estimate of that model on that GPU type (a learned efficiency factor, an EWMA over all jobs).
 * Pure: a new state from the old one and the round's observations.
 */

/** Weight of a new observation of the same job on the same Cell. */
export const CELL_ALPHA = 0.5;
/** Weight of a new observation in the per-(model, GPU type) efficiency factor. */
export const EFFICIENCY_ALPHA = 0.2;
/** Ratios outside [1/LIMIT, LIMIT] are measurement glitches (a restart, a straggler), not efficiency. */
const LIMIT = 4;

export interface Observation {
  readonly jobId: string;
  readonly model: string;
  readonly gpuType: string;
  /** Identifies the Cell the job ran on (`cellKey`). */
  readonly cell: string;
  readonly measured: number;
  readonly estimated: number;
  /** `efficiencyKey(model, gpuType)`, when the caller has it made already. */
  readonly efficiency?: string | undefined;
}

export const EMPTY_CALIBRATION: CellCalibrationState = { cells: {}, efficiency: {} };

export const efficiencyKey = (model: string, gpuType: string): string => `${model}|${gpuType}`;

type CellEntry = { readonly cell: string; readonly ratio: number };

/**
 * Folds observations in; entries of jobs that are no longer active are dropped (the state stays bounded).
 * Copy on write: a record (`cells`, `efficiency`) nothing changes is returned as it was, and the state itself when
 * neither changes — a job observed at the same ratio on the same Cell leaves its EWMA where it is, so most rounds
 * change little. `previousKeys`: `Object.keys(state.cells)`, when the caller keeps it.
 */
export const observe = (
  state: CellCalibrationState | undefined,
  observations: readonly Observation[],
  activeJobs: ActiveJobs,
  previousKeys?: readonly string[],
): CellCalibrationState => observeKeyed(state, observations, activeJobs, previousKeys).state;

/**
 * `observe`, with the job ids of the new state's `cells` record in its order (`Object.keys(state.cells)`), made as
 * the record is: the kept ids in their order, then the new ones as they were added (ids that are array indices, which
 * objects order first, are listed by `Object.keys` instead).
 */
export const observeKeyed = (
  state: CellCalibrationState | undefined,
  observations: readonly Observation[],
  activeJobs: ActiveJobs,
  previousKeys?: readonly string[],
): { readonly state: CellCalibrationState; readonly keys: readonly string[] } => {
  const previous = state ?? EMPTY_CALIBRATION;
  const previousCells = previous.cells;
  const keys = previousKeys ?? Object.keys(previousCells);
  let cells: Record<string, CellEntry> | undefined;
  let cellKeys: string[] | undefined;
  let indexLike = false;
  for (const jobId of keys) {
    if (activeJobs.has(jobId)) continue;
    cellKeys = [];
    cells = activeCopy(previousCells, keys, activeJobs, cellKeys);
    break;
  }
  let efficiency: Record<string, number> | undefined;
  for (const o of observations) {
    if (!(o.measured > 0 && o.estimated > 0)) continue;
    const ratio = o.measured / o.estimated;
    if (ratio > LIMIT || ratio < 1 / LIMIT) continue;
    const own = (cells ?? previousCells)[o.jobId];
    const same = own !== undefined && own.cell === o.cell;
    const next = same ? CELL_ALPHA * ratio + (1 - CELL_ALPHA) * own.ratio : ratio;
    if (!(same && next === own.ratio)) {
      if (!cells) {
        cellKeys = [];
        cells = activeCopy(previousCells, keys, activeJobs, cellKeys);
      }
      if (!Object.hasOwn(cells, o.jobId)) {
        cellKeys!.push(o.jobId);
        indexLike ||= ARRAY_INDEX.test(o.jobId);
      }
      cells[o.jobId] = { cell: o.cell, ratio: next };
    }
    const key = o.efficiency ?? efficiencyKey(o.model, o.gpuType);
    const learned = (efficiency ?? previous.efficiency)[key];
    const factor =
      learned === undefined ? ratio : EFFICIENCY_ALPHA * ratio + (1 - EFFICIENCY_ALPHA) * learned;
    if (factor !== learned) {
      efficiency ??= { ...previous.efficiency };
      efficiency[key] = factor;
    }
  }
  const newKeys = !cells ? (state ? keys : []) : indexLike ? Object.keys(cells) : cellKeys!;
  if (!state) return { state: { cells: cells ?? {}, efficiency: efficiency ?? {} }, keys: newKeys };
  if (!cells && !efficiency) return { state, keys: newKeys };
  return {
    state: { cells: cells ?? previousCells, efficiency: efficiency ?? previous.efficiency },
    keys: newKeys,
  };
};

/** Keys objects order first (ascending), before every other key: the canonical array indices and more. */
const ARRAY_INDEX = /^\d+$/;

/** The ids of the jobs still active (a set, or a map keyed by them). */
export interface ActiveJobs {
  has(jobId: string): boolean;
}

/** The entries of active jobs, in the order of `keys` (`Object.keys(cells)`). */
const activeCopy = (
  cells: Readonly<Record<string, CellEntry>>,
  keys: readonly string[],
  activeJobs: ActiveJobs,
  /** Receives the copy's keys, in order. */
  kept: string[],
): Record<string, CellEntry> => {
  const copy: Record<string, CellEntry> = {};
  for (const jobId of keys) {
    if (!activeJobs.has(jobId)) continue;
    copy[jobId] = cells[jobId]!;
    kept.push(jobId);
  }
  return copy;
};

/**
 * The calibrated rate of an estimate: the job's own ratio when it was observed on this very Cell, else the
 * learned efficiency of its model on the GPU type, else the raw estimate.
 */
export const calibratedRate = (
  state: CellCalibrationState | undefined,
  jobId: string,
  model: string,
  gpuType: string,
  cell: string,
  raw: number,
): number => calibratedRateOf(state, jobId, cell, efficiencyKey(model, gpuType), raw);

/** `calibratedRate` with the efficiency key already made (the hot path makes it once per job and Cell). */
export const calibratedRateOf = (
  state: CellCalibrationState | undefined,
  jobId: string,
  cell: string,
  efficiency: string,
  raw: number,
): number => {
  if (!state || raw <= 0) return raw;
  return rateWithOwn(state, state.cells[jobId], cell, efficiency, raw);
};

/** `calibratedRateOf` with the job's own entry (`state.cells[jobId]`) already looked up. */
export const rateWithOwn = (
  state: CellCalibrationState | undefined,
  own: { readonly cell: string; readonly ratio: number } | undefined,
  cell: string,
  efficiency: string,
  raw: number,
): number => {
  if (!state || raw <= 0) return raw;
  if (own && own.cell === cell) return raw * own.ratio;
  return raw * (state.efficiency[efficiency] ?? 1);
};

/** A Cell's value: its rate over the round's reference rate (0 without one); every Cell's value is made here. */
export const cellValue = (rate: number, reference: number): number => (reference > 0 ? rate / reference : 0);

/** `calibratedRateOf` for a job with no ratio of its own on the Cell: the model's learned efficiency alone. */
export const modelCalibratedRate = (
  state: CellCalibrationState | undefined,
  efficiency: string,
  raw: number,
): number => rateByFactor(state, efficiencyFactor(state, efficiency), raw);

/** The model's learned efficiency on a type (`efficiencyKey`) as `modelCalibratedRate` applies it: 1 without one. */
export const efficiencyFactor = (state: CellCalibrationState | undefined, efficiency: string): number =>
  state ? (state.efficiency[efficiency] ?? 1) : 1;

/** `modelCalibratedRate` with its factor (`efficiencyFactor`) already looked up. */
export const rateByFactor = (state: CellCalibrationState | undefined, factor: number, raw: number): number =>
  !state || raw <= 0 ? raw : raw * factor;
