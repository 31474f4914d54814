/**
 * Step 8': the per-tenant job summary GET /cluster shows (items/tenant-summary.ts), from the jobs the round holds
 * after its writes and its view of the queue — no extra read. Written only when it changed; a failure is logged and
 * never fails the round (the API then shows the previous summary with its older `asOf`).
 */
import type { JobItem } from '../items/job-item.ts';
import type { QueuedJob } from '../items/queued-job.ts';
import { summarizeTenants } from '../items/tenant-summary.ts';
import type { RoundDependencies } from './run-round.ts';

export const publishTenantSummary = async (
  deps: Pick<RoundDependencies, 'tenantSummary' | 'log'>,
  jobs: readonly (JobItem | QueuedJob)[],
  nowSeconds: number,
): Promise<void> => {
  if (!deps.tenantSummary) return;
  try {
    await deps.tenantSummary.publish(summarizeTenants(jobs), nowSeconds);
  } catch (error) {
    deps.log.warn('could not write the tenant summary; GET /cluster shows the previous one', {
      error: String(error),
    });
  }
};
