import { memoKey } from '../../framework/round-memo.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobSpec, JobState } from '../../model/job.ts';
import type { PerfModel } from '../../model/perf.ts';
import { cellValue, type Observation } from './calibration.ts';
import type { CellEstimator } from './estimator.ts';
import type { CellConfig, Raw, StaticCells } from './job-cells.ts';

/**
 * What Crius keeps per allocation object from round to round: a running job keeps its allocation object while it
 * holds it, so one lookup per job and round finds everything about its held Cell that does not change with the
 * calibration. Every field is a function of the allocation, the spec, the round's capacity, the perf model and the
 * estimator: the record is emptied and refilled when one of them is not the one it was made from (a warm or a cold
 * memo gives the same Cells). The calibrated held Cell (`last`) is reused only when the calibration gives it the same
 * rate.
 */
export interface HeldJob {
  spec: JobSpec;
  /** The round's capacity key (`capacityKey(ctx)[0]`). */
  capacity: string;
  perf: PerfModel;
  estimator: CellEstimator;
  /** The held Cell uncalibrated, once made (`heldMade`); undefined when it holds none we can estimate. */
  held: HeldCell | undefined;
  heldMade: boolean;
  /** The uncalibrated estimate measured throughput is compared with (`nextState`), once made. */
  estimated: number | undefined;
  estimatedMade: boolean;
  /** The job's shape's raw Cells for the count options whose capacity key is `staticsKey`. */
  staticsKey: string | undefined;
  statics: StaticCells | undefined;
  /** The held Cell calibrated, as last made: kept while its rate and value stay the same. */
  last: CellConfig | undefined;
  /** The job's last observation on its held Cell (`observationOf`): kept while it reports the same throughput. */
  observed: Observation | undefined;
}

/** The Cell a running job holds, uncalibrated, with its keys. */
export interface HeldCell {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly raw: Raw;
  readonly key: string;
  readonly efficiency: string;
}

const HELD_JOB = memoKey<HeldJob>('crius held job');

/**
 * The record of the job's allocation for this round's inputs (`capacity`: `capacityKey(ctx)[0]`): one object per
 * allocation, emptied and refilled when an input is not the one it was made from.
 */
export const heldJob = (
  job: JobState,
  ctx: RoundContext,
  estimator: CellEstimator,
  capacity: string,
): HeldJob => {
  const record = ctx.memo.of(job.allocation!, HELD_JOB, emptyRecord);
  if (
    record.spec === job.spec &&
    record.capacity === capacity &&
    record.perf === ctx.perf &&
    record.estimator === estimator
  )
    return record;
  return refill(record, job.spec, capacity, ctx.perf, estimator);
};

/** The record for these inputs with nothing made yet (one field list for a new record and a reused one). */
const refill = (
  record: HeldJob,
  spec: JobSpec,
  capacity: string,
  perf: PerfModel,
  estimator: CellEstimator,
): HeldJob => {
  record.spec = spec;
  record.capacity = capacity;
  record.perf = perf;
  record.estimator = estimator;
  record.held = undefined;
  record.heldMade = false;
  record.estimated = undefined;
  record.estimatedMade = false;
  record.staticsKey = undefined;
  record.statics = undefined;
  record.last = undefined;
  record.observed = undefined;
  return record;
};

/** A record no input matches (its spec is no job's), filled on first use. */
const emptyRecord = (): HeldJob => refill({} as HeldJob, NO_SPEC, '', NO_PERF, NO_ESTIMATOR);
const NO_SPEC = {} as JobSpec;
const NO_PERF = {} as PerfModel;
const NO_ESTIMATOR = {} as CellEstimator;

/**
 * The held Cell calibrated to `rate` (and normalised by `reference`): the record's last one when it has this rate and
 * value (no new object per job and round while its calibration stays), else a new one, kept.
 */
export const calibratedHeld = (
  record: HeldJob,
  held: HeldCell,
  rate: number,
  reference: number,
): CellConfig => {
  const value = cellValue(rate, reference);
  const last = record.last;
  if (last !== undefined && last.rate === rate && last.value === value) return last;
  const config: CellConfig = {
    gpuType: held.gpuType,
    gpus: held.gpus,
    cell: held.raw.cell,
    key: held.key,
    rate,
    value,
  };
  record.last = config;
  return config;
};

/**
 * The observation of a running job's `measured` throughput on its held Cell `held` against its estimate `estimated`
 * (both the record's: `heldMade`, `estimatedMade`). Every other field is the record's too (its spec's id and model),
 * so the last one stands while the job reports the same throughput: no new object per running job and round.
 */
export const observationOf = (
  record: HeldJob,
  held: HeldCell,
  estimated: number,
  measured: number,
): Observation => {
  const last = record.observed;
  if (
    last !== undefined &&
    last.measured === measured &&
    last.estimated === estimated &&
    last.cell === held.key
  )
    return last;
  const observation: Observation = {
    jobId: record.spec.id,
    model: record.spec.model,
    gpuType: held.gpuType,
    cell: held.key,
    measured,
    estimated,
    efficiency: held.efficiency,
  };
  record.observed = observation;
  return observation;
};
