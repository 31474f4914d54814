/**
 * A job's logical size L: how many ESTs (logical workers) it has for its whole life (pure). Every worker count
 * the policy may give it runs the same L ESTs, so a checkpoint written on 4 GPUs resumes on 2 or 8 (EasyScale's
 * idea applied to every job, not only elastic ones). Fixed on the item at the first placement: later policy or
 * fleet changes never change it.
 */

import type { AllocateStage } from '../../core/framework/stages.ts';
import type { JobSpec } from '../../core/model/job.ts';
import { allocationGpuCount } from '../../core/model/plan.ts';
import type { JobItem } from '../items/job-item.ts';

/** The most GPUs `allocate` may ever give the job: elastic maxP, Crius's 2 × request, else the request. */
export const logicalSizeFor = (spec: JobSpec, allocate?: Pick<AllocateStage, 'largestSize'>): number =>
  spec.elastic ? spec.elastic.maxP : Math.max(1, spec.gpus, allocate?.largestSize?.(spec) ?? 0);

/** The item's recorded L; items placed before it was recorded keep what they were started with. */
export const logicalWorkersOf = (item: JobItem, worldSize: number): number =>
  item.logicalWorkers ?? item.spec.elastic?.maxP ?? worldSize;

/**
 * L to record for an item that has none yet. A job that already wrote checkpoints before L existed (an item from an
 * older control plane) keeps the size they were written at, as far as the item tells: its current worker count, else
 * its request. Any other job gets the policy's largest size.
 */
export const firstLogicalSize = (item: JobItem, policySize: (item: JobItem) => number): number => {
  if (item.checkpointStep < 0) return policySize(item);
  return item.spec.elastic?.maxP ?? (item.allocation ? allocationGpuCount(item.allocation) : item.spec.gpus);
};
