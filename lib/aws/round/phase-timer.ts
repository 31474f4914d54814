/**
 * Where a round's seconds go (reads, core, writes, …), for the round report and its log line: each `lap` charges the
 * time since the previous lap to a named phase. Wall-clock time of the shell, never read by the core.
 */
export interface PhaseTimer {
  lap(phase: string): void;
  readonly seconds: Record<string, number>;
}

export const phaseTimer = (now: () => number = () => performance.now()): PhaseTimer => {
  let last = now();
  const seconds: Record<string, number> = {};
  return {
    seconds,
    lap(phase) {
      const t = now();
      seconds[phase] = +((seconds[phase] ?? 0) + (t - last) / 1000).toFixed(3);
      last = t;
    },
  };
};
