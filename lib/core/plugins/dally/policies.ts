import type { Policy } from '../../framework/stages.ts';
import { type AutoTunerOptions, DEFAULT_AUTO_TUNER } from './auto-tuner.ts';
import { requestedDemands } from './demands.ts';
import { networkSensitiveOrder } from './order.ts';
import { delayPlacement } from './place.ts';
import { DEFAULT_PREEMPTION, type PreemptionOptions } from './preemption.ts';
import type { PriorityFormula } from './priority.ts';
import { autoTimers, fixedTimers, type TimerSource } from './timers.ts';

const HOUR = 3600;

export interface DallyOptions {
  readonly name: string;
  readonly description: string;
  readonly timers: TimerSource;
  readonly formula?: PriorityFormula;
  /** Default: DEFAULT_PREEMPTION; `false` turns preemption and moves off. */
  readonly preemption?: PreemptionOptions | false;
}

/** A Dally composition: P-ordered offers, every job's requested demand, delay-scheduled placement with preemption. */
export const dallyPolicy = (options: DallyOptions): Policy => {
  const formula = options.formula ?? 'ratio';
  const preemption = options.preemption === false ? undefined : (options.preemption ?? DEFAULT_PREEMPTION);
  return {
    name: options.name,
    description: options.description,
    order: networkSensitiveOrder(formula),
    allocate: requestedDemands,
    place: delayPlacement({ timers: options.timers, formula, ...(preemption ? { preemption } : {}) }),
  };
};

/** Dally with the auto-tuner; `tuner` overrides the defaults (24 h history, 30 min fallback timers). */
export const dallyAuto = (tuner: Partial<AutoTunerOptions> = {}): Policy =>
  dallyPolicy({
    name: 'dally',
    description:
      'Dally: offers in increasing network-sensitive priority P = W/R, most consolidated first; delay timers per (level, GPU demand) auto-tuned to mean + 2σ of recent waits; preempts clearly less-slowed jobs (30 min quantum, cost guard) and moves slowed running jobs to better-consolidated GPUs.',
    timers: autoTimers({ ...DEFAULT_AUTO_TUNER, ...tuner }),
  });

const dallyManual = dallyPolicy({
  name: 'dally-manual',
  description:
    'Dally with hand-set delay timers: 12 h for a machine, then 12 h more for a rack (the paper’s defaults).',
  timers: fixedTimers(12 * HOUR, 12 * HOUR),
});

const dallyNoWait = dallyPolicy({
  name: 'dally-nowait',
  description: 'Dally-noWait: delay timers 0 — takes the most consolidated offer available at once.',
  timers: fixedTimers(0, 0),
});

const dallyFull = dallyPolicy({
  name: 'dally-full',
  description:
    'Dally-fullyConsolidated: infinite delay timers — waits for one machine (one rack when larger, any placement only when larger than a rack).',
  timers: fixedTimers(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY),
});

export const DALLY_POLICIES: readonly Policy[] = [dallyAuto(), dallyManual, dallyNoWait, dallyFull];
