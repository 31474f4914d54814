import { isHolding } from '../../framework/compare.ts';
import { partitionPoint } from '../../framework/partition-point.ts';
import type { Keyed } from './keep-started.ts';

/**
 * Whether the makespan guard may put a job first: only while what it takes from the jobs that wait is small to them —
 * its remaining GPU-seconds over the cluster's GPUs (how long its GPUs would serve them) at most the median remaining
 * time of the other jobs that wait. The condition `keep-started.ts` puts on keeping a started job, here on the guard
 * itself.
 *
 * Why: the guard's test (remaining time r at least the backlog's drain) is about one job's length, not its gang. A gang
 * asking half the cluster passes it easily — its own GPU-seconds are half of the drain — and then holds half the
 * cluster ahead of every short arrival for its whole run, or, shrunk to half by Crius's search to admit them, runs two
 * times longer and still ends late. Pollux workload-1 on pollux-64 (16 × 4 T4): a 32-GPU resnet50 of 16.8 k s was
 * guarded from its arrival and held 16–32 GPUs for 45 k s, while 12-GPU jobs of 1–2 k s waited or ran at half; SRTF,
 * which runs it on what the short jobs leave, ended it sooner (40 k s) and had an average JCT 0.92× tessera's. A job
 * of a few GPUs, the case the guard was made for (Shockwave's 1–8-GPU jobs on 32–80 GPUs), delays the jobs that wait
 * by a small fraction of its length and keeps the guard.
 *
 * When nobody waits there is nobody to delay: the guard applies as before.
 */
export const guardSharePays = (keyed: readonly Keyed[], gpus: number): ((entry: Keyed) => boolean) => {
  const waiting: number[] = [];
  for (const e of keyed) if (Number.isFinite(e.k) && e.k >= 0 && !isHolding(e.job)) waiting.push(e.k);
  if (waiting.length === 0) return () => true;
  waiting.sort((a, b) => a - b);
  return (entry) => {
    // The median (element (n − 1) >> 1, as in keep-started) of the other waiting jobs' remaining times.
    const self = isHolding(entry.job) ? -1 : partitionPoint(waiting.length, (i) => waiting[i]! >= entry.k);
    const n = self < 0 ? waiting.length : waiting.length - 1;
    if (n === 0) return true;
    const m = (n - 1) >> 1;
    const median = self < 0 || m < self ? waiting[m]! : waiting[m + 1]!;
    return (entry.k * entry.job.spec.gpus) / gpus <= median;
  };
};
