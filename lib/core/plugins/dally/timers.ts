import type { SchedulerState } from '../../model/state.ts';
import { type AutoTunerOptions, tunedTimers, validateAutoTuner } from './auto-tuner.ts';
import type { DelayTimers } from './delay-rule.ts';

/**
 * Where a policy's delay timers come from: fixed by hand (Dally-manual 12 h + 12 h, Dally-noWait 0 + 0,
 * Dally-fullyConsolidated ∞ + ∞) or learned by the auto-tuner from the wait-time history in the scheduler state.
 */
export type TimerSource =
  | { readonly kind: 'fixed'; readonly timers: DelayTimers }
  | { readonly kind: 'auto'; readonly tuner: AutoTunerOptions };

export const fixedTimers = (machine: number, rack: number): TimerSource => {
  for (const [name, v] of [
    ['machine', machine],
    ['rack', rack],
  ] as const) {
    if (!(v >= 0))
      throw new RangeError(`dally timers: ${name} must be ≥ 0 seconds (Infinity allowed), got ${v}`);
  }
  return { kind: 'fixed', timers: { machine, rack } };
};

export const autoTimers = (tuner: AutoTunerOptions): TimerSource => ({
  kind: 'auto',
  tuner: validateAutoTuner(tuner),
});

/** The timers a job of `gpus` GPUs sees at `now` (before Algorithm 1's machine/rack-size adjustment). */
export const timersFor = (
  source: TimerSource,
  state: SchedulerState,
  gpus: number,
  now: number,
): DelayTimers =>
  source.kind === 'fixed' ? source.timers : tunedTimers(state.delayTuner, gpus, now, source.tuner);
