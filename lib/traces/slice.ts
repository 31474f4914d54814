import { shiftJob } from './build.ts';
import type { Trace } from './types.ts';

export interface SliceOptions {
  /** Days of the trace to skip from its first arrival (`--skip-days`). Default 0. */
  skipDays?: number;
  /** Length of the window in days (`--days`). Default: to the end of the trace. */
  days?: number;
  /** Keep at most this many jobs, the earliest in the window (`--max-jobs`). */
  maxJobs?: number;
}

const DAY = 86_400;

/**
 * The jobs submitted in [skipDays, skipDays + days) days after the trace's first arrival, at most
 * `maxJobs` of them (earliest first), re-based so the first kept arrival is 0. Issues carry over.
 * Throws a RangeError naming the option when an option is out of range.
 */
export const sliceTrace = (trace: Trace, options: SliceOptions = {}): Trace => {
  const { skipDays = 0, days, maxJobs } = options;
  if (!(Number.isFinite(skipDays) && skipDays >= 0))
    throw new RangeError(`skipDays must be a number ≥ 0, got ${skipDays}`);
  if (days !== undefined && !(Number.isFinite(days) && days > 0))
    throw new RangeError(`days must be a positive number, got ${days}`);
  if (maxJobs !== undefined && !(Number.isInteger(maxJobs) && maxJobs > 0))
    throw new RangeError(`maxJobs must be a positive integer, got ${maxJobs}`);
  const from = skipDays * DAY;
  const to = days === undefined ? Number.POSITIVE_INFINITY : from + days * DAY;
  // Stable sort: jobs with equal submit times keep their trace order.
  const inWindow = trace.jobs
    .filter((j) => j.submitTime >= from && j.submitTime < to)
    .sort((a, b) => a.submitTime - b.submitTime);
  const kept = maxJobs === undefined ? inWindow : inWindow.slice(0, maxJobs);
  const origin = kept[0]?.submitTime ?? 0;
  return { ...trace, jobs: kept.map((j) => shiftJob(j, origin)), issues: [...trace.issues] };
};
