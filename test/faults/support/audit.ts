/**
 * The fault suite's invariants, read from the tables after the control plane settled: no job lost (every submitted
 * job still has its item), none run twice (no host other than the ones of a job's current allocation — and none
 * with another generation — is told to run it), none stuck (a running job is in the desired state of every host it
 * holds, and holds GPUs only on active hosts).
 */
import type { HostItem } from '../../../lib/aws/items/host-item.ts';
import type { ControlPlane } from '../../integration/support/local-stack.ts';

export interface Audit {
  readonly jobs: number;
  readonly lost: string[];
  readonly twice: string[];
  readonly stuck: string[];
}

export const audit = async (cp: ControlPlane, jobIds: readonly string[]): Promise<Audit> => {
  const { items: hosts } = await cp.hosts.listByStates([
    'pending',
    'active',
    'draining',
    'lost',
    'unsupported',
  ]);
  const byId = new Map<string, HostItem>(hosts.map((h) => [h.hostId, h]));
  const lost: string[] = [];
  const twice: string[] = [];
  const stuck: string[] = [];
  const items = new Map((await cp.jobs.getMany(jobIds)).map((j) => [j.jobId, j]));
  for (const jobId of jobIds) {
    const job = items.get(jobId);
    if (!job) {
      lost.push(jobId);
      continue;
    }
    const holders = new Set(job.allocation?.slices.map((s) => s.hostId) ?? []);
    for (const host of hosts) {
      if (host.desired?.stop) continue;
      const listed = host.desired?.jobs.find((j) => j.jobId === jobId);
      if (!listed) continue;
      const current =
        (job.status === 'running' || job.status === 'checkpointing') &&
        holders.has(host.hostId) &&
        listed.jobGeneration === job.jobGeneration;
      if (!current) twice.push(`${jobId} on ${host.hostId} (g${listed.jobGeneration}, job ${job.status})`);
    }
    if (job.status === 'running' || job.status === 'checkpointing') {
      for (const hostId of holders) {
        const host = byId.get(hostId);
        if (host?.state !== 'active')
          stuck.push(`${jobId} holds GPUs on ${hostId} (${host?.state ?? 'unknown'})`);
        else if (!host.desired?.jobs.some((j) => j.jobId === jobId))
          stuck.push(`${jobId} is running but not in ${hostId}'s desired state`);
      }
    }
  }
  return { jobs: jobIds.length, lost, twice, stuck };
};
