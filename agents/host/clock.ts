/** Time source of the agent. Injected everywhere so the core stays deterministic and tests control time. */
export interface Clock {
  /**
   * Milliseconds since the Unix epoch: the agent's timers run on it; what the agent sends (telemetry `at`, log
   * lines) is converted to epoch seconds.
   */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
