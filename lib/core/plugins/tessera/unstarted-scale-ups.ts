import { isHolding } from '../../framework/compare.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { orderIndex } from '../tesserae/order-index.ts';

/**
 * Crius's scale-up pass (`crius/search.ts`, `scaleUp`) makes at most `depth` moves a round (3): each moves a running
 * job, which restarts it. A job admitted this round has not started: its larger Cell costs no restart, and it may end
 * before the next round gives it one (Gavel's small_test.trace: 20 jobs of 2–216 s at t = 0 on tesserae-80, 60 s
 * rounds; three of them started on 2 GPUs, ElasticFlow started nine, avg JCT 1.05× ElasticFlow's). So the depth
 * counts only moves of jobs that hold GPUs; jobs admitted this round scale up while a move clears the gain margin
 * and there is room (the search's choice budget still bounds the pass).
 */
export const unstartedScaleUps = (
  ordered: readonly JobState[],
  ctx: RoundContext,
): ((jobId: string) => boolean) => {
  let index: ReadonlyMap<string, number> | undefined;
  return (jobId) => {
    index ??= orderIndex(ordered, ctx);
    const at = index.get(jobId);
    const job = at === undefined ? undefined : ordered[at];
    return job !== undefined && !isHolding(job);
  };
};
