import { sortByKey } from '../../framework/compare.ts';
import { bestIsolatedThroughput } from '../../framework/estimates.ts';
import type { OrderStage } from '../../framework/stages.ts';
import { remainingIterations } from '../../model/job.ts';

/** Shortest remaining time first, from the performance model's estimate at the requested GPU count. Preemptive. */
export const srtfOrder: OrderStage = {
  name: 'srtf',
  order: (jobs, ctx) =>
    sortByKey(jobs, (job) => {
      const rate = bestIsolatedThroughput(job.spec, job.spec.gpus, ctx);
      return rate > 0 ? remainingIterations(job) / rate : Number.POSITIVE_INFINITY;
    }),
};
