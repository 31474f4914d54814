import { sortKeyed } from '../../framework/compare.ts';
import { bestIsolatedThroughput } from '../../framework/estimates.ts';
import type { OrderStage, RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { arrivalOrderOnceBatch } from './end-phase.ts';
import { guardSharePays } from './guard-share.ts';
import { type Keyed, keepStartedGuardedJobs } from './keep-started.ts';

/**
 * Iterations a job still has to run, as the scheduler must guess it: users' `iterations` are estimates, and a job
 * that has reached or nearly reached its estimate is assumed to have at least a tenth of what it has done left.
 * (Without the floor a job that overruns its estimate would look finished and sit at the head of the queue.)
 */
export const estimatedRemainingIterations = (job: JobState): number =>
  Math.max(job.spec.iterations - job.progress, job.progress / 10);

/** Estimated seconds left, alone at its requested count on its fastest allowed type; ∞ if it cannot run. */
const remainingSeconds = (job: JobState, ctx: RoundContext): number => {
  const rate = bestIsolatedThroughput(job.spec, job.spec.gpus, ctx);
  return rate > 0 ? estimatedRemainingIterations(job) / rate : Number.POSITIVE_INFINITY;
};

/**
 * Tessera's admission order: shortest remaining time first, with a makespan guard.
 *
 * SRTF minimises average JCT but leaves the longest jobs for last, so they finish at "backlog + their length" and
 * set both the tail and the makespan. The guard computes the backlog's drain time (the active jobs' remaining
 * GPU-seconds over the cluster's GPUs); a job whose own remaining time is at least that long cannot wait for the
 * backlog without extending the schedule, so it goes first (longest first) — while its GPUs would delay the jobs
 * that wait by at most their median remaining time (`guard-share.ts`: a gang asking half the cluster is not put
 * ahead of every short arrival). Few jobs are that long at once, so short jobs lose little. Preemptive: a running job
 * is ordered like any other, so a shorter arrival may displace it where the allocation stage allows — except a
 * running job the guard covered against the work that was there when it started, which waiting jobs do not displace
 * while its GPUs are a small delay to the later arrivals (`keep-started.ts`). Once no job has arrived for the drain
 * time (the backlog is a batch) the unguarded jobs go in arrival order instead, running ones first (`end-phase.ts`).
 */
export const srtfWithMakespanGuard: OrderStage = {
  name: 'srtf+makespan-guard',
  order: (jobs, ctx) => {
    // Each job's remaining time, once, in one array the sort then keys in place (no map from id to time); built by
    // `push`, which keeps it packed also once this is optimised (see `sortKeyed`).
    const keyed: Keyed[] = [];
    for (const job of jobs) keyed.push({ job, k: remainingSeconds(job, ctx) });
    let work = 0;
    for (const { job, k: r } of keyed) if (Number.isFinite(r)) work += r * job.spec.gpus;
    let gpus = 0;
    for (const c of ctx.capacity.values()) gpus += c.gpus;
    gpus = Math.max(1, gpus);
    const drain = work / gpus;
    // Read before any key is negated: the waiting jobs' remaining times.
    const mayGuard = guardSharePays(keyed, gpus);
    for (const entry of keyed) {
      const r = entry.k;
      // Guarded jobs sort below every unguarded key (keys are ≥ 0), longest first among themselves.
      if (Number.isFinite(r) && r >= drain && r > 0 && mayGuard(entry)) entry.k = -r;
    }
    if (!arrivalOrderOnceBatch(keyed, drain, ctx.now)) keepStartedGuardedJobs(keyed, drain, gpus);
    return sortKeyed(keyed);
  },
};
