import { isHolding } from '../../framework/compare.ts';
import { MinHeap } from '../../framework/min-heap.ts';
import { partitionPoint } from '../../framework/partition-point.ts';
import type { JobState } from '../../model/job.ts';

/** A job and its order key: its remaining seconds, negated when the makespan guard puts it first, ∞ if it cannot run. */
export interface Keyed {
  readonly job: JobState;
  k: number;
}

/** A key just below `k`, so that a kept job sorts ahead of the job it was keyed against, whatever the tie-break. */
const justBelow = (k: number): number => k * (1 - 1e-9);

/**
 * A running job the makespan guard covered when it started keeps its GPUs against the jobs that wait.
 *
 * Why: under overload the guard is a cliff. A long job started while the queue was short (its remaining time r at
 * least the backlog's drain) loses the guard as soon as arrivals make the backlog longer than r, falls from the head of
 * the order to its tail, is suspended for shorter arrivals and resumes only when the backlog has drained again — its
 * JCT is then the whole overload (Shockwave's 220-job trace on tesserae-80: shockwave-1 suspended at 5,171 s, four
 * restarts, 13,137 s; under Crius it runs through in 10,745 s). So a running job whose r is at least the drain of the
 * work that was there when its allocation started (the active jobs that had arrived by then) sorts just ahead of the
 * shortest job that waits: no waiting job displaces it, while guarded jobs and shorter running jobs still go first.
 *
 * Only while what it takes from the jobs that arrived after it started is small to them: its remaining GPU-seconds
 * over the cluster's GPUs (how long its GPUs would serve them) at most the median remaining time of those later
 * arrivals that wait. A large gang keeps yielding to short arrivals, as SRTF wants (without this condition the
 * Pollux kit's average JCT went from 1.000 to 1.082× the best policy's, geometric mean, and its misses 73 → 83; the
 * Shockwave kit's were the same either way).
 *
 * `keyed`: every active job with its key after the guard; `drain`: the backlog's drain time; `gpus`: the cluster's
 * GPUs. Changes the keys of the kept jobs in place.
 */
export const keepStartedGuardedJobs = (keyed: Keyed[], drain: number, gpus: number): void => {
  const byArrival: Keyed[] = [];
  let shortestWaiting = Number.POSITIVE_INFINITY;
  for (const e of keyed) {
    if (!Number.isFinite(e.k)) continue;
    byArrival.push(e);
    if (e.k >= 0 && e.k < shortestWaiting && !isHolding(e.job)) shortestWaiting = e.k;
  }
  if (!Number.isFinite(shortestWaiting)) return; // nobody waits: nobody to keep GPUs against
  byArrival.sort(
    (a, b) =>
      a.job.spec.submitTime - b.job.spec.submitTime ||
      (a.job.spec.id < b.job.spec.id ? -1 : a.job.spec.id > b.job.spec.id ? 1 : 0),
  );
  // The active jobs' remaining GPU-seconds by arrival: workBy[i] is the work of byArrival[0..i].
  const arrivals: number[] = [];
  const workBy: number[] = [];
  let work = 0;
  for (const e of byArrival) {
    work += Math.abs(e.k) * e.job.spec.gpus;
    arrivals.push(e.job.spec.submitTime);
    workBy.push(work);
  }
  /** Index in `byArrival` of the first job that arrived after `t`. */
  const firstAfter = (t: number): number => partitionPoint(arrivals.length, (i) => arrivals[i]! > t);
  // The jobs to keep, each with the first later arrival; then, from the latest arrival backwards, the waiting later
  // arrivals' remaining times enter a running median, so each job's test reads it once (not a scan and sort per job:
  // quadratic with thousands of running jobs and tens of thousands waiting).
  const candidates: { entry: Keyed; first: number }[] = [];
  for (const e of keyed) {
    const r = e.k;
    // Skip jobs guarded now (negative key) or unable to run (∞), jobs that hold no GPUs, and jobs no longer than the
    // shortest waiting job (SRTF already keeps them).
    if (!(r > shortestWaiting && r < drain) || !isHolding(e.job) || e.job.runningSince === undefined)
      continue;
    const first = firstAfter(e.job.runningSince);
    if (first === 0 || r < workBy[first - 1]! / gpus) continue; // not guarded against the work there at its start
    candidates.push({ entry: e, first });
  }
  candidates.sort((a, b) => b.first - a.first);
  const median = new LowerMedian();
  let next = byArrival.length;
  for (const { entry, first } of candidates) {
    while (next > first) {
      const other = byArrival[--next]!;
      if (!isHolding(other.job)) median.add(Math.abs(other.k));
    }
    // Only waiting jobs enter the median, and only kept (holding) jobs' keys change: the order of the tests is free.
    if (median.size > 0 && (entry.k * entry.job.spec.gpus) / gpus > median.value()) continue;
    entry.k = justBelow(shortestWaiting);
  }
};

/** The lower median of the numbers added so far (element (n − 1) >> 1 of them sorted ascending), by two heaps. */
class LowerMedian {
  /** The lower ⌈n/2⌉, negated (a max-heap). */
  private readonly lower = new MinHeap<undefined>();
  /** The upper ⌊n/2⌋. */
  private readonly upper = new MinHeap<undefined>();

  get size(): number {
    return this.lower.size + this.upper.size;
  }

  add(x: number): void {
    if (this.lower.size === 0 || x <= -this.lower.peekKey()!) this.lower.push(-x, undefined);
    else this.upper.push(x, undefined);
    if (this.lower.size > this.upper.size + 1) this.upper.push(-this.lower.pop()!.key, undefined);
    else if (this.upper.size > this.lower.size) this.lower.push(-this.upper.pop()!.key, undefined);
  }

  value(): number {
    return -this.lower.peekKey()!;
  }
}
