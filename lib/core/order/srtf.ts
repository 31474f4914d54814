import { bestIsolatedThroughput } from '../allocate/estimates.ts';
import { remainingIterations } from '../model/job.ts';
import type { OrderStage } from '../stages.ts';
import { sortByKey } from './compare.ts';

/** Shortest remaining time first, from the performance model's estimate at the requested GPU count. Preemptive. */
export const srtfOrder: OrderStage = {
  name: 'srtf',
  order: (jobs, ctx) =>
    sortByKey(jobs, (job) => {
      const rate = bestIsolatedThroughput(job.spec, job.spec.gpus, ctx);
      return rate > 0 ? remainingIterations(job) / rate : Number.POSITIVE_INFINITY;
    }),
};
