import { isHolding } from '../../framework/compare.ts';
import type { MigrateStage } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import type { Plan } from '../../model/plan.ts';
import { inPlanForm, samePlanFormGpus } from './plan-form.ts';
import { relabelMigration } from './relabel.ts';

/**
 * Tesserae's relabelling after a keep-in-place placement: skipped when the plan already keeps every job that runs
 * now (and stays on its GPU type) on exactly its GPUs. Such a plan moves no job, which is the least the relabelling
 * can reach, so renaming it could only permute where new jobs go; in most rounds of a keep-then-fit policy nothing
 * moved, and the relabelling was a third of the round. The very `plan` is returned, so callers can tell.
 */
export const relabelUnlessInPlace: MigrateStage = {
  name: 'relabel',
  relabel: (ordered, plan, free, ctx) =>
    keepsEveryRunningJob(ordered, plan) ? plan : relabelMigration.relabel(ordered, plan, free, ctx),
};

/** Whether every held job that the plan keeps on its GPU type sits on the same GPUs, and slices are in plan form. */
export const keepsEveryRunningJob = (ordered: readonly JobState[], plan: Plan): boolean => {
  for (const allocation of plan.values()) if (!inPlanForm(allocation)) return false;
  for (const job of ordered) {
    if (!isHolding(job)) continue;
    const next = plan.get(job.spec.id);
    const now = job.allocation!;
    if (next && next.gpuType === now.gpuType && !samePlanFormGpus(now, next)) return false;
  }
  return true;
};
