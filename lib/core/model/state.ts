import type { ElasticMemory } from '../elastic/memory.ts';

/**
 * What the scheduler carries from one round to the next (DynamoDB SchedulerState on AWS, memory in the simulator).
 * Stages that learn over time (Dally's auto-tuner, Crius calibration) add their own typed fields.
 */
export interface SchedulerState {
  readonly round: number;
  readonly lastRoundAt?: number;
  /** Dally's auto-tuner history (lib/core/dally/auto-tuner.ts). */
  readonly delayTuner?: DelayTunerState;
  /** EasyScale's intra-job schedulers: scale-outs on trial and those measured slower (lib/core/elastic/memory.ts). */
  readonly elastic?: ElasticMemory;
  /** Crius calibration of Cell estimates from observed throughput (lib/core/cells/calibration.ts). */
  readonly cellCalibration?: CellCalibrationState;
}

/** Observed ÷ estimated throughput, learned by Crius from running jobs. */
export interface CellCalibrationState {
  /** Per running job: the Cell it was observed on (a key) and the EWMA of measured ÷ estimated throughput. */
  readonly cells: Readonly<Record<string, { readonly cell: string; readonly ratio: number }>>;
  /** Per `model|gpuType`: the learned efficiency factor, an EWMA of the same ratios over all jobs. */
  readonly efficiency: Readonly<Record<string, number>>;
}

/** One observed wait: a job accepted an offer at time `at` after waiting `waited` seconds. */
export interface WaitSample {
  readonly at: number;
  readonly waited: number;
}

/**
 * Dally's wait-time lists, one per (consolidation level, GPU demand), keyed `machine:8`, `rack:16`, … Only machine and
 * rack acceptances are recorded (Algorithm 1); samples older than the history window are dropped.
 */
export interface DelayTunerState {
  readonly lists: Readonly<Record<string, readonly WaitSample[]>>;
}

export const initialSchedulerState = (): SchedulerState => ({ round: 0 });
