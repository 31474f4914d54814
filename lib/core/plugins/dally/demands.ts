import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { allowedTypes } from '../../framework/estimates.ts';
import type { AllocateStage, Demand } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import { allocationGpuCount } from '../../model/plan.ts';

/**
 * Every active job asks for what it requested (a running job: what it holds), with no admission cut: under delay
 * scheduling admission is the job's own accept/reject of the offers the placement stage makes, and a job that rejects
 * one must not keep capacity from the jobs behind it. The type is the allowed one with the most GPUs (Dally's clusters
 * are homogeneous; heterogeneity-aware type choice is another stage's job).
 */
export const requestedDemands: AllocateStage = {
  name: 'requested',
  allocate: (ordered, ctx) => {
    const demands = new Map<string, Demand>();
    for (const job of ordered) {
      if (isHolding(job)) {
        demands.set(job.spec.id, demandOf(job.allocation!.gpuType, allocationGpuCount(job.allocation!)));
        continue;
      }
      let type: GpuTypeId | undefined;
      for (const t of allowedTypes(job.spec, ctx)) {
        const gpus = ctx.capacity.get(t)?.gpus ?? 0;
        if (gpus >= job.spec.gpus && (!type || gpus > (ctx.capacity.get(type)?.gpus ?? 0))) type = t;
      }
      if (type) demands.set(job.spec.id, demandOf(type, job.spec.gpus));
    }
    return demands;
  },
};
