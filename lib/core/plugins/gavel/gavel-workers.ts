import { isHolding } from '../../framework/compare.ts';
import type { Demand, PlaceStage } from '../../framework/stages.ts';
import { allocationOf } from '../../model/allocation-of.ts';
import type { JobState } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';

/**
 * Gavel's worker assignment (its scheduler's `_schedule_jobs_on_workers`), where Gavel's migration rule lives:
 * jobs are assigned from the largest GPU count down, to limit fragmentation; within a size, a job that held
 * GPUs of the same type and count keeps them if none is taken yet, and the others take the first free GPUs
 * in host order (Gavel's strided fill of servers). A job whose GPUs went to a larger job moves. Paired with
 * `naiveMigration`, a job migrates exactly when its GPU ids change.
 */
export const gavelWorkerPlacement: PlaceStage = {
  name: 'gavel-workers',
  place: (ordered, demands, free) => {
    const admitted: { job: JobState; demand: Demand }[] = [];
    for (const job of ordered) {
      const demand = demands.get(job.spec.id);
      if (demand) admitted.push({ job, demand });
    }
    const sizes = [...new Set(admitted.map((a) => a.demand.gpus))].sort((a, b) => b - a);
    const plan = new Map<string, Allocation>();
    for (const size of sizes) {
      const same = admitted.filter((a) => a.demand.gpus === size);
      for (const { job, demand } of same) {
        const held = isHolding(job) ? job.allocation! : undefined;
        if (!held || held.gpuType !== demand.gpuType || allocationGpuCount(held) !== size) continue;
        if (!free.canReserve(held)) continue;
        const kept = allocationOf(held.gpuType, held.slices);
        free.reserve(kept);
        plan.set(job.spec.id, kept);
      }
      for (const { job, demand } of same) {
        if (plan.has(job.spec.id)) continue;
        const slices = free.firstFit(demand.gpuType, size);
        if (!slices) continue;
        const allocation = allocationOf(demand.gpuType, slices);
        free.reserve(allocation);
        plan.set(job.spec.id, allocation);
      }
    }
    return plan;
  },
};
