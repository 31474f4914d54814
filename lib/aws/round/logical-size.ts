/**
 * A job's logical size L: how many ESTs (logical workers) it has for its whole life (pure). Every worker count
 * the policy may give it runs the same L ESTs, so a checkpoint written on 4 GPUs resumes on 2 or 8 (EasyScale's
 * idea applied to every job, not only elastic ones). Fixed on the item at the first placement: later policy or
 * fleet changes never change it.
 */
import type { JobSpec } from '../../core/model/job.ts';
import type { AllocateStage } from '../../core/stages.ts';
import type { JobItem } from '../items/job-item.ts';

/** The most GPUs `allocate` may ever give the job: elastic maxP, Crius's 2 × request, else the request. */
export const logicalSizeFor = (spec: JobSpec, allocate?: Pick<AllocateStage, 'largestSize'>): number =>
  spec.elastic ? spec.elastic.maxP : Math.max(1, spec.gpus, allocate?.largestSize?.(spec) ?? 0);

/** The item's recorded L; items placed before it was recorded keep what they were started with. */
export const logicalWorkersOf = (item: JobItem, worldSize: number): number =>
  item.logicalWorkers ?? item.spec.elastic?.maxP ?? worldSize;
