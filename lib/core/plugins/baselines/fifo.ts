import { byPriorityThenArrival, isHolding, sortByKey } from '../../framework/compare.ts';
import type { OrderStage } from '../../framework/stages.ts';

/** First come, first served. Non-preemptive: jobs holding GPUs stay ahead of every waiting job. */
export const fifoOrder: OrderStage = {
  name: 'fifo',
  order: (jobs) => sortByKey(jobs, (job) => (isHolding(job) ? 0 : 1)),
};

/** Arrival order only; running jobs get no precedence, so a preemptive allocator may displace them. */
export const arrivalOrder: OrderStage = {
  name: 'arrival',
  order: (jobs) => [...jobs].sort(byPriorityThenArrival),
};
