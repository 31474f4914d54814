import type { PlaceStage } from '../../framework/stages.ts';
import { allocationOf } from '../../model/allocation-of.ts';
import type { JobState } from '../../model/job.ts';
import type { Allocation } from '../../model/plan.ts';

/**
 * Placement from a clean slate, as Tesserae plans a round: every admitted job gets GPUs as if the cluster were
 * empty, ignoring what it holds now — the plan's host and GPU ids are logical, and a relabelling stage
 * (`relabelMigration`) maps them onto physical GPUs afterwards so that jobs stay where they are. Jobs are
 * placed largest first (admission already honoured priority), each at the best consolidation level the free
 * GPUs offer — one machine when it fits — within the demand's `maxLevel`; a job that finds no room waits.
 */
export const logicalPlacement: PlaceStage = {
  name: 'logical-consolidated',
  place: (ordered, demands, free) => {
    const admitted = ordered.flatMap((job) => {
      const demand = demands.get(job.spec.id);
      return demand ? [{ job, demand }] : [];
    });
    admitted.sort((a, b) => b.demand.gpus - a.demand.gpus || byArrival(a.job, b.job));
    const plan = new Map<string, Allocation>();
    for (const { job, demand } of admitted) {
      const found = free.find(demand.gpuType, demand.gpus, demand.maxLevel ?? 'network');
      if (!found) continue;
      const allocation = allocationOf(demand.gpuType, found.slices, demand.cell || undefined);
      free.reserve(allocation);
      plan.set(job.spec.id, allocation);
    }
    return plan;
  },
};

const byArrival = (a: JobState, b: JobState): number =>
  a.spec.submitTime - b.spec.submitTime || (a.spec.id < b.spec.id ? -1 : a.spec.id > b.spec.id ? 1 : 0);
