import { expandCluster } from '../lib/clusters/spec.ts';
import { type RoundOutput, scheduleRound } from '../lib/core/framework/round.ts';
import { RoundMemo } from '../lib/core/framework/round-memo.ts';
import type { Policy } from '../lib/core/framework/stages.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import { type JobSpec, type JobState, newJobState } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { allocationGpuCount } from '../lib/core/model/plan.ts';
import { initialSchedulerState } from '../lib/core/model/state.ts';
import { getPolicy } from '../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { DEFAULT_MODEL_MIX } from '../lib/sim/model-mix.ts';
import { syntheticJobs } from './synthetic-jobs.ts';
import type { BenchRow, BenchSuite } from './types.ts';

export const ROUND_BENCH_POLICIES = ['fifo', 'yarn-cs', 'tiresias', 'gandiva', 'srtf', 'tessera', 'crius'];

const SETUPS = [
  { gpus: 256, jobs: 2048 },
  { gpus: 1280, jobs: 1000 },
  { gpus: 10240, jobs: 10000 },
];
const QUICK_SETUPS = [
  { gpus: 256, jobs: 2048 },
  { gpus: 1280, jobs: 1000 },
];

/** A homogeneous cluster of 8-GPU A100 hosts, 32 hosts per rack. */
export const benchCluster = (gpus: number): Cluster =>
  expandCluster({
    name: `bench-${gpus}`,
    groups: [{ gpuType: 'A100-40GB', hosts: Math.ceil(gpus / 8), gpusPerHost: 8, hostsPerRack: 32 }],
  });

/**
 * Jobs after one round from an empty cluster: those the plan placed run (with some attained service), the rest wait —
 * the mix of running and waiting jobs a steady-state round sees.
 */
export const standingJobs = (
  specs: readonly JobSpec[],
  cluster: Cluster,
  policy: Policy,
  perf: PerfModel,
  now: number,
): { states: JobState[]; first: RoundOutput } => {
  const first = scheduleRound({
    now,
    cluster,
    jobs: specs.map(newJobState),
    state: initialSchedulerState(),
    policy,
    perf,
  });
  const states: JobState[] = specs.map((spec, i) => {
    const allocation = first.plan.get(spec.id);
    const base = newJobState(spec);
    if (!allocation) return base;
    const ran = 60 + (i % 17) * 600;
    return {
      ...base,
      status: 'running',
      allocation,
      runningSince: now - ran,
      runningSeconds: ran,
      attainedService: ran * allocationGpuCount(allocation),
      progress: Math.min(spec.iterations - 1, ran),
    };
  });
  return { states, first };
};

/**
 * A standing state for a round: every job arrived; the first round's plan is applied (those jobs run, with some
 * attained service), so the measured round sees running and waiting jobs, as a steady-state round does.
 */
export const steadyState = (
  cluster: Cluster,
  jobs: number,
  policyName: string,
  perf: PerfModel,
  seed: number,
) => {
  const policy = getPolicy(policyName);
  const specs = syntheticJobs({ count: jobs, seed, models: DEFAULT_MODEL_MIX });
  const now = 3_600;
  const { states, first } = standingJobs(specs, cluster, policy, perf, now);
  return { policy, states, state: first.state, now: now + 60 };
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const roundSuite: BenchSuite = {
  name: 'round',
  description:
    'wall time of one scheduleRound per policy at (GPUs, active jobs): median of repeated rounds, warm (a RoundMemo carried between rounds, as the simulator and the warm round Lambda carry it) and cold (a fresh memo each round)',
  columns: ['setup', 'policy', 'gpus', 'activeJobs', 'runningJobs', 'seconds', 'coldSeconds'],
  *run({ quick, seed, log }) {
    const perf = loadDefaultPerfModel();
    for (const setup of quick ? QUICK_SETUPS : SETUPS) {
      const cluster = benchCluster(setup.gpus);
      for (const policyName of ROUND_BENCH_POLICIES) {
        log(`round: ${setup.gpus} GPUs × ${setup.jobs} jobs, ${policyName}`);
        const { policy, states, state, now } = steadyState(cluster, setup.jobs, policyName, perf, seed);
        const repeats = setup.jobs >= 10_000 ? 3 : 5;
        const round = (memo: RoundMemo) => {
          const started = performance.now();
          const out = scheduleRound({ now, cluster, jobs: states, state, policy, perf, memo });
          return { seconds: (performance.now() - started) / 1000, running: out.stats.runningJobs };
        };
        // Warm: one memo carried between the repeats, after a first round that fills it (not counted).
        const memo = new RoundMemo();
        const running = round(memo).running;
        const warm = Array.from({ length: repeats }, () => round(memo).seconds);
        const cold = Array.from({ length: repeats }, () => round(new RoundMemo()).seconds);
        const row: BenchRow = {
          suite: 'round',
          setup: `${setup.gpus}gpus-${setup.jobs}jobs`,
          policy: policyName,
          gpus: setup.gpus,
          activeJobs: setup.jobs,
          runningJobs: running,
          seconds: Number(median(warm).toFixed(4)),
          coldSeconds: Number(median(cold).toFixed(4)),
        };
        yield row;
      }
    }
  },
};
