import type { DelayTimers } from './delay-rule.ts';
import type { DelayTunerState, WaitSample } from './state.ts';

/** Settings of Dally's auto-tuner (Algorithm 2, rebuilt in specs/dally.md §4). */
export interface AutoTunerOptions {
  /** History limit: samples older than this many seconds are dropped. "In larger clusters a smaller limit is advised." */
  readonly historySeconds: number;
  /** At most this many (most recent) samples per list, which also bounds the state persisted on AWS. */
  readonly maxSamples: number;
  /** Timers for a (level, demand) whose list is empty. 30 min suits cloud use; 12 h each reproduces the paper. */
  readonly fallback: DelayTimers;
  /** Timer = mean + `sigmas` × sample standard deviation (2 ≈ a 95 % bound). */
  readonly sigmas: number;
}

export const DEFAULT_AUTO_TUNER: AutoTunerOptions = {
  historySeconds: 24 * 3600,
  maxSamples: 128,
  fallback: { machine: 30 * 60, rack: 30 * 60 },
  sigmas: 2,
};

export type TunedLevel = 'machine' | 'rack';

export const tunerKey = (level: TunedLevel, gpus: number): string => `${level}:${gpus}`;

export const emptyTuner = (): DelayTunerState => ({ lists: {} });

/** Throws a RangeError naming the first bad field. */
export const validateAutoTuner = (options: AutoTunerOptions): AutoTunerOptions => {
  const check = (path: string, v: number, ok: boolean, rule: string): void => {
    if (!ok) throw new RangeError(`dally auto-tuner: ${path} must be ${rule}, got ${v}`);
  };
  const h = options.historySeconds;
  check('historySeconds', h, h > 0 && !Number.isNaN(h), 'a number > 0');
  const m = options.maxSamples;
  check('maxSamples', m, Number.isInteger(m) && m >= 1, 'an integer ≥ 1');
  for (const level of ['machine', 'rack'] as const) {
    const v = options.fallback[level];
    check(`fallback.${level}`, v, v >= 0 && !Number.isNaN(v), 'a number ≥ 0 (Infinity allowed)');
  }
  check('sigmas', options.sigmas, Number.isFinite(options.sigmas) && options.sigmas >= 0, 'a number ≥ 0');
  return options;
};

/** The samples of one list still inside the history window at `now`. */
const live = (samples: readonly WaitSample[] | undefined, now: number, options: AutoTunerOptions) =>
  (samples ?? []).filter((s) => s.at > now - options.historySeconds && s.at <= now);

/** mean + k·s of the waits, s the sample standard deviation (0 with fewer than two samples); undefined when empty. */
export const waitBound = (waits: readonly number[], sigmas: number): number | undefined => {
  const n = waits.length;
  if (n === 0) return undefined;
  const mean = waits.reduce((s, w) => s + w, 0) / n;
  if (n < 2) return mean;
  const variance = waits.reduce((s, w) => s + (w - mean) ** 2, 0) / (n - 1);
  return mean + sigmas * Math.sqrt(variance);
};

/** Timers for a job of `gpus` GPUs at `now`, recomputed at every offer from the lists in the window. */
export const tunedTimers = (
  state: DelayTunerState | undefined,
  gpus: number,
  now: number,
  options: AutoTunerOptions,
): DelayTimers => {
  const timer = (level: TunedLevel): number =>
    waitBound(
      live(state?.lists[tunerKey(level, gpus)], now, options).map((s) => s.waited),
      options.sigmas,
    ) ?? options.fallback[level];
  return { machine: timer('machine'), rack: timer('rack') };
};

/** Adds one acceptance to its list (keeping the most recent `maxSamples` in the window). */
export const recordWait = (
  state: DelayTunerState | undefined,
  level: TunedLevel,
  gpus: number,
  waited: number,
  now: number,
  options: AutoTunerOptions,
): DelayTunerState => {
  const key = tunerKey(level, gpus);
  const lists = state?.lists ?? {};
  const kept = [...live(lists[key], now, options), { at: now, waited: Math.max(0, waited) }];
  return { lists: { ...lists, [key]: kept.slice(-options.maxSamples) } };
};

/**
 * Drops every sample outside the window and every empty list, so the persisted state stays small. Asked every round
 * by the cost-aware delay: a state with nothing to drop (most rounds) is returned as it is, not copied list by list.
 */
export const pruneTuner = (
  state: DelayTunerState | undefined,
  now: number,
  options: AutoTunerOptions,
): DelayTunerState => {
  if (state && nothingToPrune(state, now, options)) return state;
  const lists: Record<string, readonly WaitSample[]> = {};
  for (const [key, samples] of Object.entries(state?.lists ?? {})) {
    const kept = live(samples, now, options);
    if (kept.length > 0) lists[key] = kept.slice(-options.maxSamples);
  }
  return { lists };
};

/** Whether every list is non-empty, within `maxSamples` and holds live samples only: `pruneTuner` would copy it as is. */
const nothingToPrune = (state: DelayTunerState, now: number, options: AutoTunerOptions): boolean => {
  const from = now - options.historySeconds;
  for (const key in state.lists) {
    if (!Object.hasOwn(state.lists, key)) return false;
    const samples = state.lists[key]!;
    if (samples.length === 0 || samples.length > options.maxSamples) return false;
    for (const s of samples) if (!(s.at > from && s.at <= now)) return false;
  }
  return true;
};
