import { isHolding } from '../../framework/compare.ts';
import { levelOf } from '../../framework/free-gpus.ts';
import type { MigrateStage } from '../../framework/stages.ts';
import { withSlices } from '../../model/allocation-of.ts';
import { allocationGpuCount } from '../../model/plan.ts';
import { levelRank } from '../../model/topology.ts';

/**
 * Gandiva's introspection: when GPUs free up, a running job spread over several machines moves to a better
 * consolidated set of free GPUs, if one exists. Jobs started this round are left where they were just placed.
 */
export const introspectiveMigration: MigrateStage = {
  name: 'introspective',
  relabel: (ordered, plan, free, ctx) => {
    const next = new Map(plan);
    for (const job of ordered) {
      const current = next.get(job.spec.id);
      if (!current || !isHolding(job) || current !== job.allocation || current.packedWith) continue;
      const level = levelOf(current, ctx.hostOf);
      if (level === 'machine') continue;
      free.release(current);
      const gpus = allocationGpuCount(current);
      const better = free.find(current.gpuType, gpus);
      if (better && levelRank(better.level) < levelRank(level)) {
        const moved = withSlices(current, better.slices);
        free.reserve(moved);
        next.set(job.spec.id, moved);
      } else {
        free.reserve(current);
      }
    }
    return next;
  },
};
