/** What the API returns for jobs and the cluster: plain JSON with ISO times, no internal bookkeeping. */
import type { HostItem } from '../../lib/aws/items/host-item.ts';
import type { JobItem } from '../../lib/aws/items/job-item.ts';
import type { LogPage } from '../../lib/aws/logs/read-log-page.ts';
import { allocationGpuCount } from '../../lib/core/model/plan.ts';

/** Items store epoch seconds; the API shows ISO 8601 instants (unit-free, and what people and `Date.parse` read). */
const iso = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000).toISOString();

export const jobView = (job: JobItem) => ({
  jobId: job.jobId,
  ...(job.spec.name ? { name: job.spec.name } : {}),
  tenant: job.tenant,
  status: job.status,
  ...(job.cancelRequested ? { cancelRequested: true } : {}),
  model: job.spec.model,
  ...modelView(job),
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
    ? { startedAt: iso(job.runningSince) }
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
  ...(job.finishTime !== undefined ? { finishedAt: iso(job.finishTime) } : {}),
  ...(job.failureReason ? { failureReason: job.failureReason } : {}),
  command: job.launch.command,
  ...(job.launch.image ? { image: job.launch.image } : {}),
  ...(job.launch.workdir ? { workdir: job.launch.workdir } : {}),
  ...(job.launch.setup ? { setup: job.launch.setup } : {}),
  ...(job.spec.labels ? { labels: job.spec.labels } : {}),
  timeline: (job.timeline ?? []).map((e) => ({ ...e, at: iso(e.at)! })),
  ...waitView(job),
});

export type ModelBasisView = 'catalog' | 'declared' | 'estimated' | 'calibrated';

/**
 * Where the job's model figures come from: the catalog, the job's declared profile, the conservative estimate, or
 * either of those calibrated from measured throughput — and what the latest round predicted (round/model-estimates.ts).
 */
const modelView = (
  job: JobItem,
): {
  modelBasis: ModelBasisView;
  modelName?: string;
  calibrationSamples?: number;
  predictedIterationsPerSecond?: number;
} => {
  const user = job.spec.userModel;
  if (!user) return { modelBasis: 'catalog' };
  const estimate = job.modelEstimate;
  return {
    modelName: user.name,
    modelBasis: estimate?.basis ?? (user.profile ? 'declared' : 'estimated'),
    ...(estimate?.samples !== undefined ? { calibrationSamples: estimate.samples } : {}),
    ...(estimate?.predictedThroughput !== undefined
      ? { predictedIterationsPerSecond: estimate.predictedThroughput }
      : {}),
  };
};

/** Why a waiting job waits, its place in the queue and its estimated start, as the latest round saw them. */
const waitView = (job: JobItem) => {
  if (job.status !== 'queued' && job.status !== 'suspended') return {};
  return {
    ...(job.waitReason ? { waitReason: job.waitReason } : {}),
    ...(job.queuePosition !== undefined ? { queuePosition: job.queuePosition } : {}),
    ...(job.estimatedStart !== undefined ? { estimatedStart: iso(job.estimatedStart) } : {}),
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

/**
 * A page of a job's logs: lines (rank, `at` in seconds, stream, text), the cursor to read on from (also after the
 * last page: polling with it returns what was written since), whether more lines wait now, and whether every
 * rank's output is shipped to the end (with a terminal status: nothing more will come).
 */
export const logPageView = (jobId: string, status: JobItem['status'], page: LogPage) => ({
  jobId,
  status,
  lines: page.lines,
  nextCursor: page.cursor,
  more: page.more,
  drained: page.drained,
});
