import { sortByKey } from '../../framework/compare.ts';
import type { OrderStage } from '../../framework/stages.ts';
import { type PriorityFormula, priorities } from './priority.ts';

/**
 * Dally's offer order: increasing P (the jobs slowed most by the network first), ties by user priority, arrival and
 * id. Running and waiting jobs are ordered together: a running job on a poor placement is first to be offered a better
 * one (the placement stage decides whether it moves).
 */
export const networkSensitiveOrder = (formula: PriorityFormula = 'ratio'): OrderStage => ({
  name: `dally-priority(${formula})`,
  order: (jobs, ctx) => {
    const p = priorities(jobs, ctx, formula);
    return sortByKey(jobs, (job) => p.get(job.spec.id)!);
  },
});
