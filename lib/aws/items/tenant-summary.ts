/**
 * What `GET /cluster` shows a tenant of its own jobs: counts per status and GPUs held, for every tenant with active
 * jobs, in one item of the SchedulerState table. The round writes it (it holds the whole queue in its view), so the
 * API reads one item whatever the length of the queue; `asOf` (epoch seconds) says which round it describes.
 */
import { z } from 'zod';
import { allocationGpuCount } from '../../core/model/plan.ts';
import type { JobItem } from './job-item.ts';
import { ACTIVE_JOB_STATUSES } from './job-item.ts';

export const TENANT_SUMMARY_KEY = 'tenant-summary';

export const tenantJobsSchema = z.object({
  /** Active jobs per status (queued, running, checkpointing, suspended); statuses without jobs left out. */
  jobs: z.record(z.string(), z.int().nonnegative()),
  /** GPUs the tenant's running and checkpointing jobs hold. */
  gpus: z.int().nonnegative(),
});

export const tenantSummaryItemSchema = z.object({
  key: z.literal(TENANT_SUMMARY_KEY),
  /** Epoch seconds: the round the counts describe. */
  asOf: z.number(),
  tenants: z.record(z.string(), tenantJobsSchema),
});

export type TenantJobs = z.infer<typeof tenantJobsSchema>;
export type TenantSummary = z.infer<typeof tenantSummaryItemSchema>['tenants'];

type Counted = Pick<JobItem, 'jobId' | 'tenant' | 'status'> & { allocation?: JobItem['allocation'] };

const ACTIVE = new Set<string>(ACTIVE_JOB_STATUSES);

/** Per tenant: its active jobs by status and the GPUs they hold (pure). A job listed twice counts once. */
export const summarizeTenants = (jobs: Iterable<Counted>): TenantSummary => {
  const seen = new Set<string>();
  const tenants: TenantSummary = {};
  for (const job of jobs) {
    if (seen.has(job.jobId) || !ACTIVE.has(job.status)) continue;
    seen.add(job.jobId);
    const entry = tenants[job.tenant] ?? { jobs: {}, gpus: 0 };
    tenants[job.tenant] = entry;
    entry.jobs[job.status] = (entry.jobs[job.status] ?? 0) + 1;
    if (job.allocation && (job.status === 'running' || job.status === 'checkpointing'))
      entry.gpus += allocationGpuCount(job.allocation);
  }
  return tenants;
};
