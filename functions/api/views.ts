/** What the API returns for jobs and the cluster: plain JSON with ISO times, no internal bookkeeping. */
import type { HostItem } from '../../lib/aws/items/host-item.ts';
import type { JobItem } from '../../lib/aws/items/job-item.ts';
import { allocationGpuCount } from '../../lib/core/model/plan.ts';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export const jobView = (job: JobItem) => ({
  jobId: job.jobId,
  ...(job.spec.name ? { name: job.spec.name } : {}),
  tenant: job.tenant,
  status: job.status,
  ...(job.cancelRequested ? { cancelRequested: true } : {}),
  model: job.spec.model,
  batchSize: job.spec.batchSize,
  gpus: job.spec.gpus,
  ...(job.spec.gpuTypes ? { gpuTypes: job.spec.gpuTypes } : {}),
  ...(job.spec.elastic ? { elastic: job.spec.elastic } : {}),
  priority: job.spec.priority,
  iterations: job.spec.iterations,
  progress: job.progress,
  submittedAt: iso(job.submittedAt),
  updatedAt: iso(job.updatedAt),
  ...(job.runningSince !== undefined && (job.status === 'running' || job.status === 'checkpointing')
    ? { startedAt: iso(job.runningSince * 1000) }
    : {}),
  ...(job.allocation
    ? {
        allocation: {
          gpuType: job.allocation.gpuType,
          gpus: allocationGpuCount(job.allocation),
          hosts: job.allocation.slices.map((s) => ({ hostId: s.hostId, gpus: s.gpus })),
          ...(job.allocation.packedWith ? { packedWith: job.allocation.packedWith } : {}),
        },
      }
    : {}),
  ...(job.measuredThroughput !== undefined ? { iterationsPerSecond: job.measuredThroughput } : {}),
  checkpointStep: job.checkpointStep,
  restarts: job.restarts,
  migrations: job.migrations,
  ...(job.finishTime !== undefined ? { finishedAt: iso(job.finishTime * 1000) } : {}),
  ...(job.failureReason ? { failureReason: job.failureReason } : {}),
  command: job.launch.command,
  ...(job.launch.image ? { image: job.launch.image } : {}),
  ...(job.launch.workdir ? { workdir: job.launch.workdir } : {}),
  ...(job.launch.setup ? { setup: job.launch.setup } : {}),
  ...(job.spec.labels ? { labels: job.spec.labels } : {}),
  timeline: (job.timeline ?? []).map((e) => ({ ...e, at: iso(e.at * 1000)! })),
  ...waitView(job),
});

/** Why a waiting job waits, its place in the queue and its estimated start, as the latest round saw them. */
const waitView = (job: JobItem) => {
  if (job.status !== 'queued' && job.status !== 'suspended') return {};
  return {
    ...(job.waitReason ? { waitReason: job.waitReason } : {}),
    ...(job.queuePosition !== undefined ? { queuePosition: job.queuePosition } : {}),
    ...(job.estimatedStart !== undefined ? { estimatedStart: iso(job.estimatedStart * 1000) } : {}),
  };
};

export const hostView = (host: HostItem) => {
  const busy = new Set<number>();
  for (const job of host.desired?.jobs ?? [])
    for (const worker of job.workers) for (const gpu of worker.gpuIndices) busy.add(gpu);
  return {
    hostId: host.hostId,
    state: host.state,
    ...(host.stateReason ? { stateReason: host.stateReason } : {}),
    ...(host.instanceType ? { instanceType: host.instanceType } : {}),
    ...(host.gpuType ? { gpuType: host.gpuType } : {}),
    gpus: host.gpuCount,
    busyGpus: busy.size,
    ...(host.lifecycle ? { lifecycle: host.lifecycle } : {}),
    ...(host.zone ? { zone: host.zone } : {}),
    ...(host.rack ? { rack: host.rack } : {}),
    ...(host.lastHeartbeatAt !== undefined ? { lastHeartbeatAt: iso(host.lastHeartbeatAt) } : {}),
    desiredGeneration: host.desiredGeneration,
    ...(host.appliedGeneration !== undefined ? { appliedGeneration: host.appliedGeneration } : {}),
  };
};
