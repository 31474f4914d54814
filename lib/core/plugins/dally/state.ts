// Dally's auto-tuner: its slice of SchedulerState (delayTuner; the persisted shape is lib/core/model/state.ts's).

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
