import { isHolding } from '../../framework/compare.ts';
import type { Keyed } from './keep-started.ts';

/**
 * Once the backlog is a batch, the jobs the makespan guard leaves go in arrival order, the running ones first: no
 * waiting job displaces a running one, and none goes ahead of an earlier arrival for being shorter.
 *
 * Why: with no arrivals to come, every job still active ends near the backlog's end E whatever the order, so a job
 * that ends last has JCT ≈ E − its arrival, and which jobs end last sets the tail. SRTF ends the longest last, whenever
 * they arrived; with the guard starting each long job just when its remaining time reaches the drain, all of them end
 * together at E (Shockwave's 460-job trace on tesserae-32, seed 0: 13 of the 15 jobs with a lower bound above 9 k s
 * arrived at 0.9–4.3 k s, started at 35–45 k s and ended at 52–59 k s; the p99 is the earliest of them). In arrival
 * order the jobs that end last are the latest arrivals, as under ElasticFlow. The average pays little: by then the
 * short jobs are done. A running job keeps its GPUs: in a batch a preemption does not shorten the backlog, and the
 * suspended job pays a restart and ends later.
 *
 * A batch: no job has arrived for at least the drain time (the time since the latest arrival among the active jobs
 * is at least the backlog's drain), so at the rate arrivals have come lately fewer than one is due before the backlog
 * drains. While arrivals keep coming (Pollux's workloads, the matrices' traces) this does not hold and the order stays
 * SRTF with the guard and `keep-started.ts`.
 *
 * `keyed`: every active job with its key after the guard (negative: guarded, longest first; ∞: cannot run); `drain`:
 * the backlog's drain time; `now`: the round's time. Returns whether the backlog is a batch; if so every unguarded
 * job's key becomes 0 if it holds GPUs and 1 if it waits, so that each group sorts by priority, then arrival
 * (`sortKeyed`'s tie-break), behind the guarded jobs.
 */
export const arrivalOrderOnceBatch = (keyed: Keyed[], drain: number, now: number): boolean => {
  if (!(drain > 0)) return false;
  let latest = Number.NEGATIVE_INFINITY;
  for (const e of keyed) if (e.job.spec.submitTime > latest) latest = e.job.spec.submitTime;
  if (now - latest < drain) return false;
  for (const e of keyed) if (Number.isFinite(e.k) && e.k >= 0) e.k = isHolding(e.job) ? 0 : 1;
  return true;
};
