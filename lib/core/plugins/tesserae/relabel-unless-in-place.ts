import { isHolding } from '../../framework/compare.ts';
import type { MigrateStage } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import type { Allocation, Plan } from '../../model/plan.ts';
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
    if (next && next.gpuType === now.gpuType && !sameGpus(now, next)) return false;
  }
  return true;
};

/** Distinct hosts, each with GPUs in ascending order: the form relabelling gives every allocation. */
const inPlanForm = (allocation: Allocation): boolean => {
  const { slices } = allocation;
  for (let i = 0; i < slices.length; i++) {
    const gpus = slices[i]!.gpus;
    if (gpus.length === 0) return false;
    for (let k = 1; k < gpus.length; k++) if (!(gpus[k - 1]! < gpus[k]!)) return false;
    for (let k = 0; k < i; k++) if (slices[k]!.hostId === slices[i]!.hostId) return false;
  }
  return true;
};

/** The same GPUs, however the slices are ordered (both in plan form: distinct hosts, ascending GPUs). */
const sameGpus = (a: Allocation, b: Allocation): boolean => {
  if (a === b) return true;
  if (a.slices.length !== b.slices.length) return false;
  for (const slice of a.slices) {
    const other = b.slices.find((s) => s.hostId === slice.hostId);
    if (!other || other.gpus.length !== slice.gpus.length) return false;
    for (let k = 0; k < slice.gpus.length; k++) if (other.gpus[k] !== slice.gpus[k]) return false;
  }
  return true;
};
