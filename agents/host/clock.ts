/** Time source of the agent. Injected everywhere so the core stays deterministic and tests control time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
