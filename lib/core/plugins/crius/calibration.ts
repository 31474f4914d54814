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
}

export const EMPTY_CALIBRATION: CellCalibrationState = { cells: {}, efficiency: {} };

export const efficiencyKey = (model: string, gpuType: string): string => `${model}|${gpuType}`;

/** Folds observations in; entries of jobs that are no longer active are dropped (the state stays bounded). */
export const observe = (
  state: CellCalibrationState | undefined,
  observations: readonly Observation[],
  activeJobs: ReadonlySet<string>,
): CellCalibrationState => {
  const previous = state ?? EMPTY_CALIBRATION;
  const cells: Record<string, { cell: string; ratio: number }> = {};
  // Keys in the same order as `Object.entries`, without a [key, value] pair per running job every round.
  const previousCells = previous.cells;
  for (const jobId of Object.keys(previousCells))
    if (activeJobs.has(jobId)) cells[jobId] = previousCells[jobId]!;
  const efficiency: Record<string, number> = { ...previous.efficiency };
  for (const o of observations) {
    if (!(o.measured > 0 && o.estimated > 0)) continue;
    const ratio = o.measured / o.estimated;
    if (ratio > LIMIT || ratio < 1 / LIMIT) continue;
    const own = cells[o.jobId];
    cells[o.jobId] = {
      cell: o.cell,
      ratio: own && own.cell === o.cell ? CELL_ALPHA * ratio + (1 - CELL_ALPHA) * own.ratio : ratio,
    };
    const key = efficiencyKey(o.model, o.gpuType);
    const learned = efficiency[key];
    efficiency[key] =
      learned === undefined ? ratio : EFFICIENCY_ALPHA * ratio + (1 - EFFICIENCY_ALPHA) * learned;
  }
  return { cells, efficiency };
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
  const own = state.cells[jobId];
  if (own && own.cell === cell) return raw * own.ratio;
  return raw * (state.efficiency[efficiency] ?? 1);
};

/** `calibratedRateOf` for a job with no ratio of its own on the Cell: the model's learned efficiency alone. */
export const modelCalibratedRate = (
  state: CellCalibrationState | undefined,
  efficiency: string,
  raw: number,
): number => (!state || raw <= 0 ? raw : raw * (state.efficiency[efficiency] ?? 1));
