import type { Random } from './random.ts';

/** How jobs arrive: a Poisson process at `ratePerHour` jobs per hour, or all at once at t = 0. */
export type ArrivalProcess = { kind: 'poisson'; ratePerHour: number } | { kind: 'batch' };

/**
 * `count` non-decreasing arrival times in seconds, the first at 0. Poisson arrivals are separated
 * by exponential gaps with mean 3600 / ratePerHour seconds.
 */
export const arrivalTimes = (process: ArrivalProcess, count: number, rng: Random): number[] => {
  if (process.kind === 'batch') return new Array<number>(count).fill(0);
  const { ratePerHour } = process;
  if (!(Number.isFinite(ratePerHour) && ratePerHour > 0))
    throw new RangeError(`arrival rate must be a positive number of jobs per hour, got ${ratePerHour}`);
  const times: number[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0) t += rng.exponential(ratePerHour / 3600);
    times.push(t);
  }
  return times;
};
