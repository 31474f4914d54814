import type { JobSpec } from '../../model/job.ts';

export interface PackingEligibility {
  /** Jobs with a user priority above this never share GPUs (Tesserae §4.3: no edges for high-priority jobs). */
  readonly maxSharedPriority: number;
}

export const DEFAULT_PACKING_ELIGIBILITY: PackingEligibility = { maxSharedPriority: 0 };

/**
 * Whether a job may share GPUs at all: it allows it (`packable`), has no deadline and no high priority, and is
 * rigid (an elastic job's GPU count changes from round to round, so it has no fixed partner size).
 */
export const mayShareGpus = (
  spec: JobSpec,
  rules: PackingEligibility = DEFAULT_PACKING_ELIGIBILITY,
): boolean =>
  spec.packable && spec.deadline === undefined && spec.priority <= rules.maxSharedPriority && !spec.elastic;
