import type { GpuTypeId } from '../../model/gpu.ts';
import {
  calibratedRateOf,
  cellValue,
  efficiencyFactor,
  modelCalibratedRate,
  rateByFactor,
} from './calibration.ts';
import type { CellConfig, Raw, SharedCells, StaticCell, StaticCells } from './job-cells.ts';
import { byValue } from './own-cells.ts';
import type { CellCalibrationState } from './state.ts';

/**
 * The Cells every job of one shape shares in a round: its raw Cells calibrated by the model's learned efficiency on
 * each type (no job's own ratio), best value first. They are a function of the raw Cells and of those factors alone,
 * so they are made only when something reads them, and stand (across rounds too) while every factor is what it was.
 */

/**
 * A calibrated Cell of a job: the job's own ratio when it was observed on this very Cell, else its model's (always
 * its model's without a job id).
 */
export const makeConfig = (
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
  return { gpuType: type, gpus, cell: raw.cell, key, rate, value: cellValue(rate, reference) };
};

export interface SharedConfigs {
  /** Calibrated by the model's efficiency alone (no job's own ratio), best value first. */
  readonly configs: readonly CellConfig[];
  /** The raw Cell behind each config. */
  readonly sources: readonly StaticCell[];
}

type Efficiency = Readonly<Record<string, number>> | undefined;

/** A shape's shared Cells under one calibration: their number and best value now, the list when first read. */
export class ShapeCells implements SharedCells {
  private made: SharedConfigs | undefined;
  readonly size: number;

  constructor(
    private readonly statics: StaticCells,
    private readonly calibration: CellCalibrationState | undefined,
    /** The largest value among the Cells: the value of the first of `configs`, computed without making them. */
    readonly best: number,
  ) {
    this.size = statics.raws.length;
  }

  get configs(): readonly CellConfig[] {
    return this.list().configs;
  }

  list(): SharedConfigs {
    this.made ??= sharedConfigs(this.calibration, this.statics);
    return this.made;
  }
}

/** The shape's shared Cells under `calibration` (one object per shape while the efficiency record stays). */
export const shapeCells = (
  calibration: CellCalibrationState | undefined,
  statics: StaticCells,
): ShapeCells => {
  const efficiency = calibration?.efficiency;
  const last = statics.lastView;
  if (last && last.efficiency === efficiency) return last.view as ShapeCells;
  const view = new ShapeCells(statics, calibration, bestValue(calibration, statics));
  statics.lastView = { efficiency, view };
  return view;
};

/**
 * The largest calibrated value among the raw Cells, computed as `makeConfig` computes each value, so that it is
 * exactly the value of the first Cell once sorted: on each type's largest raw rate (one factor lookup per type), since
 * a positive factor and reference keep the order of rates (rounding is monotone); Cell by Cell otherwise.
 */
const bestValue = (calibration: CellCalibrationState | undefined, statics: StaticCells): number => {
  const { reference } = statics;
  let best = Number.NEGATIVE_INFINITY;
  for (const t of statics.typeBest) {
    // One lookup of the factor per type: `modelCalibratedRate` is `rateByFactor` of it.
    const factor = efficiencyFactor(calibration, t.efficiencyKey);
    if (!(factor > 0)) return bestValueByCell(calibration, statics);
    const value = cellValue(rateByFactor(calibration, factor, t.rate), reference);
    if (value > best) best = value;
  }
  return best;
};

const bestValueByCell = (calibration: CellCalibrationState | undefined, statics: StaticCells): number => {
  let best = Number.NEGATIVE_INFINITY;
  for (const r of statics.raws) {
    const value = cellValue(modelCalibratedRate(calibration, r.efficiencyKey, r.raw.rate), statics.reference);
    if (value > best) best = value;
  }
  return best;
};

/** The calibrated, sorted Cells of a raw-Cell set (the last ones while every factor is what it was). */
export const sharedConfigs = (
  calibration: CellCalibrationState | undefined,
  statics: StaticCells,
): SharedConfigs => {
  const efficiency = calibration?.efficiency;
  const last = statics.lastShared;
  if (last && last.efficiency === efficiency) return last.shared;
  const { raws } = statics;
  if (last && sameFactors(efficiency, raws, last.factors)) {
    last.efficiency = efficiency;
    return last.shared;
  }
  // Configs and their sources sorted together by insertion (a dozen Cells at most: no pair objects, no closures).
  const configs: CellConfig[] = [];
  const sources: StaticCell[] = [];
  const factors: number[] = [];
  for (const r of raws) {
    factors.push(factorOf(efficiency, r.efficiencyKey));
    const c = makeConfig(
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
  statics.lastShared = { efficiency, factors, shared };
  return shared;
};

/** The factor `modelCalibratedRate` applies to a raw rate (1 without a calibration or a learned efficiency). */
const factorOf = (efficiency: Efficiency, key: string): number => efficiency?.[key] ?? 1;

const sameFactors = (
  efficiency: Efficiency,
  raws: readonly StaticCell[],
  factors: readonly number[],
): boolean => {
  for (let i = 0; i < raws.length; i++)
    if (factorOf(efficiency, raws[i]!.efficiencyKey) !== factors[i]) return false;
  return true;
};
