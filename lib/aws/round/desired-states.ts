/**
 * Desired state per host, derived from the jobs that hold GPUs (pure). It is always recomputed from the Jobs
 * items rather than from the round's actions, so a round that crashed after writing jobs but before writing
 * hosts is repaired by the next one. A host's generation grows only when its workers or drain flag change.
 */
import { evenEsts } from '../../core/plugins/easyscale/even-ests.ts';
import type { DesiredJob, DesiredStateDocument, DesiredWorker } from '../../protocol/desired-state.ts';
import type { FenceTerms } from '../../protocol/fence.ts';
import type { HostItem } from '../items/host-item.ts';
import type { JobItem } from '../items/job-item.ts';
import { logicalWorkersOf } from './logical-size.ts';

export interface DesiredUpdate {
  readonly hostId: string;
  readonly desired: DesiredStateDocument;
  /** The generation the host item must still have for the write to apply. */
  readonly expectedGeneration: number;
}

/**
 * A job's checkpoint directory: `<root>/jobs/<jobId>/checkpoints` (root `s3://<bucket>` when deployed). One prefix
 * per job holds everything of it (checkpoints, logs), so a host's access can be scoped to the jobs placed on it.
 */
export const checkpointUriOf = (root: string, jobId: string): string =>
  `${root.replace(/\/+$/, '')}/jobs/${jobId}/checkpoints`;

/**
 * Every holding job's part on each host, grouped by host: one worker per GPU, ranks in slice then GPU order. Every
 * job runs its fixed logical size L as `maxP` (logical-size.ts), with the plan's EST mapping or else an even one
 * when its worker count differs from L, so any size the policy chooses resumes the job's checkpoints.
 */
export const jobsByHost = (
  jobs: readonly JobItem[],
  addressOf: (hostId: string) => string,
  checkpointRoot: string,
): Map<string, DesiredJob[]> => {
  const byHost = new Map<string, DesiredJob[]>();
  for (const job of [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1))) {
    const allocation = job.allocation;
    if (!allocation || (job.status !== 'running' && job.status !== 'checkpointing')) continue;
    if (job.masterPort === undefined) continue; // placed without a port: withMasterPorts gives it one first
    const held = allocation.slices.reduce((n, s) => n + s.gpus.length, 0);
    const logical = logicalWorkersOf(job, held);
    // Never more workers than ESTs: GPUs beyond L (a plan larger than the job's logical size) stay idle.
    const worldSize = Math.min(held, logical);
    const ests = allocation.ests ?? (worldSize === logical ? undefined : evenEsts(logical, worldSize));
    const settings = {
      jobId: job.jobId,
      jobGeneration: job.jobGeneration,
      worldSize,
      maxP: logical,
      ...(Number.isInteger(job.spec.batchSize) ? { globalBatchSize: job.spec.batchSize } : {}),
      totalSteps: Math.ceil(job.spec.iterations),
      checkpointUri: checkpointUriOf(checkpointRoot, job.jobId),
      resumeStep: job.resumeStep,
      masterAddr: addressOf(allocation.slices[0]!.hostId),
      masterPort: job.masterPort,
      command: [...job.launch.command],
      ...(job.launch.env ? { env: { ...job.launch.env } } : {}),
      ...codeSourceOf(job.launch),
    };
    let rank = 0;
    for (const slice of allocation.slices) {
      if (rank >= worldSize) break;
      const gpus = slice.gpus.slice(0, worldSize - rank);
      const workers: DesiredWorker[] = gpus.map((gpu, localRank) => {
        const mine = ests?.[rank];
        return {
          rank: rank++,
          localRank,
          gpuIndices: [gpu],
          ...(mine && mine.length > 0 ? { ests: [...mine] } : {}),
        };
      });
      const onHost = byHost.get(slice.hostId) ?? [];
      const existing = onHost.find((j) => j.jobId === job.jobId);
      if (existing) existing.workers.push(...workers);
      else onHost.push({ ...settings, workers });
      byHost.set(slice.hostId, onHost);
    }
  }
  return byHost;
};

/** A job's image, working directory and setup, stored once per job like its command. */
const codeSourceOf = (launch: JobItem['launch']): Pick<DesiredJob, 'image' | 'workdir' | 'setup'> => ({
  ...(launch.image !== undefined ? { image: launch.image } : {}),
  ...(launch.workdir !== undefined ? { workdir: launch.workdir } : {}),
  ...(launch.setup !== undefined ? { setup: [...launch.setup] } : {}),
});

/**
 * The desired-state documents that differ from what the hosts have, each with the next generation. Each carries the
 * fencing terms (protocol/fence.ts) derived from the round's heartbeat timeout, so an agent always fences by the
 * timeout that declares it lost.
 */
export const desiredUpdates = (
  hosts: readonly HostItem[],
  jobs: ReadonlyMap<string, readonly DesiredJob[]>,
  fence?: FenceTerms,
): DesiredUpdate[] => {
  const updates: DesiredUpdate[] = [];
  for (const host of hosts) {
    if (host.state !== 'active' && host.state !== 'draining') continue;
    const hostJobs = [...(jobs.get(host.hostId) ?? [])];
    const drain = host.state === 'draining';
    const current = host.desired;
    if (!current && hostJobs.length === 0 && !drain) continue; // nothing known = nothing to run
    if (current && sameContent(current, hostJobs, drain) && canonical(current.fence) === canonical(fence))
      continue;
    const generation = Math.max(host.desiredGeneration, current?.generation ?? 0) + 1;
    updates.push({
      hostId: host.hostId,
      expectedGeneration: host.desiredGeneration,
      desired: { hostId: host.hostId, generation, drain, ...(fence ? { fence } : {}), jobs: hostJobs },
    });
  }
  return updates;
};

const sameContent = (current: DesiredStateDocument, jobs: readonly DesiredJob[], drain: boolean): boolean =>
  (current.drain ?? false) === drain && canonical(current.jobs) === canonical(jobs);

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/** Jobs placed on more GPUs than their logical size (the extra GPUs stay idle): for the round's log. */
export const oversizedJobs = (jobs: readonly JobItem[]): { jobId: string; gpus: number; logical: number }[] =>
  jobs.flatMap((job) => {
    if (!job.allocation || (job.status !== 'running' && job.status !== 'checkpointing')) return [];
    const gpus = job.allocation.slices.reduce((n, s) => n + s.gpus.length, 0);
    const logical = logicalWorkersOf(job, gpus);
    return gpus > logical ? [{ jobId: job.jobId, gpus, logical }] : [];
  });
