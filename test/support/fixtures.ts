import { expandCluster } from '../../lib/clusters/spec.ts';
import { FreeGpus } from '../../lib/core/framework/free-gpus.ts';
import { roundContext } from '../../lib/core/framework/round.ts';
import type { Policy, RoundContext } from '../../lib/core/framework/stages.ts';
import { allocationOf } from '../../lib/core/model/allocation-of.ts';
import type { Cluster } from '../../lib/core/model/cluster.ts';
import { type JobSpec, type JobState, newJobState } from '../../lib/core/model/job.ts';
import type { PerfModel, ThroughputQuery } from '../../lib/core/model/perf.ts';
import type { Allocation } from '../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../lib/core/model/state.ts';
import type { CellConfig } from '../../lib/core/plugins/crius/job-cells.ts';

/**
 * A transparent performance model for unit tests of the core: 1 iteration/s per GPU, times a per-type speed,
 * slowed by spreading (rack 0.8, network 0.5). Co-location halves each job. Real models are tested on their own.
 */
export const linearPerf = (typeSpeed: Record<string, number> = {}): PerfModel => ({
  name: 'linear-test',
  throughput: (q: ThroughputQuery) => {
    const spread = q.shape.level === 'machine' ? 1 : q.shape.level === 'rack' ? 0.8 : 0.5;
    const rate = q.gpus * (typeSpeed[q.gpuType] ?? 1) * spread;
    return { iterationsPerSecond: rate, computeSeconds: 1 / rate, commSeconds: 0, source: 'analytic' };
  },
  colocation: () => ({ normalized: [0.5, 0.5], source: 'estimated' }),
});

export const cluster = (
  groups: { gpuType: string; hosts: number; gpusPerHost: number; hostsPerRack?: number }[],
  name = 'test',
): Cluster => expandCluster({ name, groups });

let counter = 0;
export const spec = (overrides: Partial<JobSpec> = {}): JobSpec => ({
  id: overrides.id ?? `j${++counter}`,
  tenant: 't',
  model: 'resnet50',
  batchSize: 32,
  gpus: 1,
  iterations: 100,
  priority: 0,
  packable: true,
  submitTime: 0,
  ...overrides,
});

export const queued = (overrides: Partial<JobSpec> = {}): JobState => newJobState(spec(overrides));

export const running = (
  overrides: Partial<JobSpec>,
  allocation: Allocation,
  state: Partial<JobState> = {},
): JobState => ({
  ...newJobState(spec(overrides)),
  status: 'running',
  allocation,
  runningSince: 0,
  ...state,
});

export const on = (gpuType: string, ...slices: [string, number[]][]): Allocation =>
  allocationOf(
    gpuType,
    slices.map(([hostId, gpus]) => ({ hostId, gpus })),
  );

/** A round at time 0 with a fresh scheduler state and no policy: the context a unit test of one stage needs. */
export const stageContext = (
  cluster: Cluster,
  jobs: readonly JobState[],
  perf: PerfModel = linearPerf(),
): RoundContext =>
  roundContext({ now: 0, cluster, jobs, state: initialSchedulerState(), policy: {} as Policy, perf });

/** The cluster's free GPUs once the plan's allocations are reserved (one that does not fit is left out). */
export const freeAfter = (c: Cluster, plan: ReadonlyMap<string, Allocation>): FreeGpus => {
  const free = new FreeGpus(c);
  for (const a of plan.values()) free.tryReserve(a);
  return free;
};

/** A one-stage Crius Cell of `gpus` GPUs of `gpuType` rated `rate` (its value `value`, the rate unless given). */
export const oneStageCell = (gpuType: string, gpus: number, rate = 1, value = rate): CellConfig => ({
  gpuType,
  gpus,
  cell: { gpuType, gpus, stageGpus: [gpus] },
  key: `${gpuType}|${gpus}|1`,
  rate,
  value,
});
