import { isHolding } from '../../framework/compare.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import type { CellConfig } from '../crius/job-cells.ts';
import type { ReclaimTest } from '../crius/reclaim-faster.ts';
import { admissionConfigs } from '../crius/search.ts';
import type { Take, TakeTest, TakeView } from '../crius/take.ts';
import { estimatedRemainingIterations } from './order.ts';
import { TakeTestMemo } from './take-pays-memo.ts';

/**
 * Whether admitting a waiting job by taking GPUs from running jobs (shrinking or moving them in Crius's search,
 * suspending them in opportunistic execution) pays, priced in the seconds of JCT each side loses:
 * - the admitted job gains its JCT without the take less its JCT with it: the earliest, over its admission Cells, of
 *   (the wait until holders of the Cell's type end and free enough GPUs for it and the jobs waiting ahead of it) plus
 *   its run there, against its run on the admitted Cell now;
 * - each running victim loses its restarts (one to resume a suspended job; two for a shrink, the one now and the one
 *   growing back) plus the progress it does not make while the admitted job runs (its rate's lost fraction over
 *   the shorter of the admitted job's run and its own).
 * A job admitted this round has not started: taking its GPUs costs nothing. Where the admitted job ends within a
 * round and hands the GPUs back, the victims pay two restarts for a run the job could have waited for: the take
 * pays only when waiting would cost the job more. No constant besides the round's restart time.
 */
export const takePays = (_ordered: readonly JobState[], ctx: RoundContext): TakeTest => {
  // Per allocation pass: the sums of the jobs waiting ahead and the holders' ends, kept while they hold.
  const memo = new TakeTestMemo();
  return (cells, admit, takes, view) => {
    const job = cells.job;
    const left = estimatedRemainingIterations(job);
    const run = admit.rate > 0 ? left / admit.rate : Number.POSITIVE_INFINITY;
    const cost = takesCost(takes, run, view, ctx.config.restartSeconds);
    if (cost === 0) return true;
    // What the job has waited already is evidence of how long it waits without a take: jobs that arrive after it
    // and go first in the order take the GPUs that free (a job that waited t expects to wait about t more).
    const waited = isHolding(job) ? 0 : Math.max(0, ctx.now - job.waitingSince);
    let without = Number.POSITIVE_INFINITY;
    const ahead = memo.gpusAhead(view);
    for (const c of admissionConfigs(cells)) {
      if (!(c.rate > 0)) continue;
      const wait = waitFor(c, view, ahead.get(c.gpuType) ?? 0, memo);
      without = Math.min(without, (wait > 0 ? Math.max(wait, waited) : 0) + left / c.rate);
    }
    return without - run > cost;
  };
};

/**
 * Whether displacing elastic jobs to admit a job on a faster Cell than the one it gets without them pays
 * (`ReclaimFasterOptions.pays`), in the seconds of JCT of `takePays`: the job gains its remaining work's run on
 * `available` less its run on `admit` (the choice is between two admissions now, not admission against waiting); each
 * displaced job loses what `takePays` prices, on the best Cell left for it. Crius's gain margin alone displaced a job
 * whatever it cost: an elastic vgg19 on 8 V100s, 1,400 s from its end, went to 16 T4s for a guaranteed arrival that
 * saved less (docs/architecture.md, "guaranteed + elastic").
 */
export const reclaimPays =
  (ctx: RoundContext): ReclaimTest =>
  (cells, available, admit, takes, view) => {
    const left = estimatedRemainingIterations(cells.job);
    if (!(admit.rate > 0)) return false;
    const run = left / admit.rate;
    const without = available.rate > 0 ? left / available.rate : Number.POSITIVE_INFINITY;
    return without - run > takesCost(takes, run, view, ctx.config.restartSeconds);
  };

/**
 * Seconds of JCT the running victims of `takes` lose while the admitted job runs `run` seconds: their restarts (one to
 * resume a suspended job or after a move, two for a shrink: the one now and the one growing back) plus the progress
 * they do not make, their rate's lost fraction over the shorter of that run and their own. A job admitted this round
 * (not holding) has not started: taking its GPUs costs nothing.
 */
const takesCost = (takes: readonly Take[], run: number, view: TakeView, restart: number): number => {
  let cost = 0;
  for (const t of takes) {
    const victim = view.job(t.jobId);
    if (!victim || !isHolding(victim) || !(t.from.rate > 0)) continue;
    const own = estimatedRemainingIterations(victim) / t.from.rate;
    const toRate = t.to ? t.to.rate : 0;
    const lost = Math.max(0, 1 - toRate / t.from.rate);
    const restarts = t.to === undefined ? 1 : t.to.gpus < t.from.gpus ? 2 : 1;
    cost += restarts * restart + Math.min(run, own) * lost;
  }
  return cost;
};

/**
 * Seconds until `config`'s GPUs are free without taking from anyone: the holders of its type (the victims too) end,
 * shortest remaining first, until the free GPUs cover it and `gpusAhead` (the smallest Cell of each job waiting ahead
 * on the type); ∞ when they never do.
 */
const waitFor = (config: CellConfig, view: TakeView, gpusAhead: number, memo: TakeTestMemo): number => {
  const type = config.gpuType;
  const need = config.gpus + gpusAhead;
  let free = view.vc.free(type);
  if (free >= need) return 0;
  for (const e of memo.holderEnds(type, view)) {
    free += e.gpus;
    if (free >= need) return e.at;
  }
  return Number.POSITIVE_INFINITY;
};
