/**
 * Delay before restarting a job after its n-th consecutive crash: base · 2^(n−1), capped.
 * No jitter: every job on a host restarts independently, and a deterministic delay is testable.
 */
export function crashBackoffMs(crashes: number, baseMs: number, maxMs: number): number {
  if (crashes < 1) return 0;
  return Math.min(maxMs, baseMs * 2 ** (crashes - 1));
}
