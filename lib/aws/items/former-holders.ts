/**
 * The hosts that held a job's previous generation. A job that is moved, resized or requeued leaves hosts that are
 * still stopping it: their final checkpoint upload and `stopped` report arrive after the job's allocation changed,
 * and only this record lets the telemetry handler tell such a host's claim from one by a host that never ran the job.
 */
import { z } from 'zod';
import type { Allocation } from '../../core/model/plan.ts';

export const formerHoldersSchema = z.object({
  jobGeneration: z.int().nonnegative(),
  hostIds: z.array(z.string()),
});

export type FormerHolders = z.infer<typeof formerHoldersSchema>;

/** The record for an allocation that is being replaced or released (undefined when the job held none). */
export const formerHoldersOf = (
  allocation: Allocation | undefined,
  jobGeneration: number,
): FormerHolders | undefined =>
  allocation
    ? { jobGeneration, hostIds: [...new Set(allocation.slices.map((slice) => slice.hostId))].sort() }
    : undefined;
