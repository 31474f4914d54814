// Crius's Cell calibration: its slice of SchedulerState (cellCalibration; the persisted shape is lib/core/model/state.ts's).

/** Observed ÷ estimated throughput, learned by Crius from running jobs. */
export interface CellCalibrationState {
  /** Per running job: the Cell it was observed on (a key) and the EWMA of measured ÷ estimated throughput. */
  readonly cells: Readonly<Record<string, { readonly cell: string; readonly ratio: number }>>;
  /** Per `model|gpuType`: the learned efficiency factor, an EWMA of the same ratios over all jobs. */
  readonly efficiency: Readonly<Record<string, number>>;
}
