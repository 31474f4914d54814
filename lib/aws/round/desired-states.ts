/**
 * Desired state per host, derived from the jobs that hold GPUs (pure). It is always recomputed from the Jobs
 * items rather than from the round's actions, so a round that crashed after writing jobs but before writing
 * hosts is repaired by the next one. A host's generation grows only when its workers or drain flag change.
 */
import type { DesiredStateDocument, DesiredWorker } from '../../../agents/host/desired-state.ts';
import type { HostItem } from '../items/host-item.ts';
import type { JobItem } from '../items/job-item.ts';

export interface DesiredUpdate {
  readonly hostId: string;
  readonly desired: DesiredStateDocument;
  /** The generation the host item must still have for the write to apply. */
  readonly expectedGeneration: number;
}

export const checkpointUriOf = (root: string, jobId: string): string =>
  `${root.replace(/\/+$/, '')}/${jobId}`;

/** Workers of every holding job, grouped by host: one per GPU, ranks in slice then GPU order. */
export const workersByHost = (
  jobs: readonly JobItem[],
  addressOf: (hostId: string) => string,
  checkpointRoot: string,
): Map<string, DesiredWorker[]> => {
  const byHost = new Map<string, DesiredWorker[]>();
  for (const job of [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1))) {
    const allocation = job.allocation;
    if (!allocation || (job.status !== 'running' && job.status !== 'checkpointing')) continue;
    if (job.masterPort === undefined) continue; // placed without a port: withMasterPorts gives it one first
    const worldSize = allocation.slices.reduce((n, s) => n + s.gpus.length, 0);
    const masterAddr = addressOf(allocation.slices[0]!.hostId);
    let rank = 0;
    for (const slice of allocation.slices) {
      const workers = byHost.get(slice.hostId) ?? [];
      slice.gpus.forEach((gpu, localRank) => {
        const ests = allocation.ests?.[rank];
        workers.push({
          jobId: job.jobId,
          jobGeneration: job.jobGeneration,
          rank,
          worldSize,
          localRank,
          gpuIndices: [gpu],
          ...(ests && ests.length > 0 ? { ests: [...ests] } : {}),
          ...(job.spec.elastic ? { maxP: job.spec.elastic.maxP } : {}),
          totalSteps: Math.ceil(job.spec.iterations),
          checkpointUri: checkpointUriOf(checkpointRoot, job.jobId),
          resumeStep: job.resumeStep,
          masterAddr,
          masterPort: job.masterPort!,
          command: [...job.launch.command],
          ...(job.launch.env ? { env: { ...job.launch.env } } : {}),
        });
        rank++;
      });
      byHost.set(slice.hostId, workers);
    }
  }
  return byHost;
};

/** The desired-state documents that differ from what the hosts have, each with the next generation. */
export const desiredUpdates = (
  hosts: readonly HostItem[],
  workers: ReadonlyMap<string, readonly DesiredWorker[]>,
): DesiredUpdate[] => {
  const updates: DesiredUpdate[] = [];
  for (const host of hosts) {
    if (host.state !== 'active' && host.state !== 'draining') continue;
    const hostWorkers = [...(workers.get(host.hostId) ?? [])];
    const drain = host.state === 'draining';
    const current = host.desired;
    if (!current && hostWorkers.length === 0 && !drain) continue; // nothing known = nothing to run
    if (current && sameContent(current, hostWorkers, drain)) continue;
    const generation = Math.max(host.desiredGeneration, current?.generation ?? 0) + 1;
    updates.push({
      hostId: host.hostId,
      expectedGeneration: host.desiredGeneration,
      desired: { hostId: host.hostId, generation, drain, workers: hostWorkers },
    });
  }
  return updates;
};

const sameContent = (
  current: DesiredStateDocument,
  workers: readonly DesiredWorker[],
  drain: boolean,
): boolean => (current.drain ?? false) === drain && canonical(current.workers) === canonical(workers);

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
