/**
 * Jobs a host is still stopping after the round took them away (pure). A job that leaves a host (moved, resized,
 * requeued) is checkpointed there first, and that last checkpoint is uploaded to the job's prefix after the host's
 * new desired state no longer lists the job: the host keeps its credentials for the job until it reports the job
 * stopped. Only jobs the control plane itself credentialed the host for qualify (`dataAccess.jobIds`), so a host
 * cannot gain access to a job's data by naming it in its heartbeat.
 */
import type { DesiredJob } from '../../protocol/desired-state.ts';
import type { HostItem } from '../items/host-item.ts';

export const leavingJobIds = (
  host: Pick<HostItem, 'actual' | 'dataAccess' | 'desired'>,
  desired: readonly Pick<DesiredJob, 'jobId'>[],
): string[] => {
  const credentialed = new Set(host.dataAccess?.jobIds ?? []);
  const kept = new Set(desired.map((job) => job.jobId));
  // The host's previous desired state counts too: a job placed and moved again before the host's next heartbeat
  // is being stopped there although no heartbeat has named it yet.
  const stillThere = [
    ...(host.actual?.jobs ?? []).filter((job) => job.phase !== 'stopped').map((job) => job.jobId),
    ...(host.desired?.jobs ?? []).map((job) => job.jobId),
  ];
  return [...new Set(stillThere.filter((id) => credentialed.has(id) && !kept.has(id)))].sort();
};
