import { distribution, mean } from './metrics.ts';
import type { SimResult } from './simulator.ts';

/** One line of `tessera sim --json`: the DESIGN §6 fields, seconds where a time. */
export interface SimSummary {
  readonly policy: string;
  readonly cluster: string;
  readonly trace: string;
  readonly jobs: number;
  readonly completed: number;
  readonly unschedulable: number;
  readonly unfinished: number;
  readonly avgJct: number;
  readonly p50Jct: number;
  readonly p95Jct: number;
  readonly p99Jct: number;
  readonly makespan: number;
  readonly avgQueueing: number;
  readonly p95Queueing: number;
  readonly p99Queueing: number;
  readonly gpuUtilization: number;
  readonly gpuHours: number;
  readonly migrations: number;
  readonly restarts: number;
  readonly commLatency: number;
  /** On-demand dollars for the GPU time used, at the catalog's EC2 list prices (see `unpricedGpuHours`). */
  readonly cost: number;
  /** GPU-hours on GPU types without an EC2 price (not in `cost`). */
  readonly unpricedGpuHours: number;
  readonly jctLowerBound: number;
  readonly rounds: number;
  readonly simulatedSeconds: number;
  readonly wallSeconds: number;
}

const round3 = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);

/** Summarise a run. JCT statistics and the lower bound cover completed jobs only, so they compare like with like. */
export const summarize = (result: SimResult, trace: string, wallSeconds: number): SimSummary => {
  const completed = result.jobs.filter((j) => j.outcome === 'completed');
  const jct = distribution(completed.map((j) => j.jct!));
  const queueing = distribution(completed.map((j) => j.queueing));
  const span = Math.max(EPS, result.endTime - result.startTime);
  const summary: SimSummary = {
    policy: result.policy,
    cluster: result.cluster,
    trace,
    jobs: result.jobs.length,
    completed: completed.length,
    unschedulable: result.jobs.filter((j) => j.outcome === 'unschedulable' || j.outcome === 'stalled').length,
    unfinished: result.jobs.filter((j) => j.outcome === 'unfinished').length,
    avgJct: jct.avg,
    p50Jct: jct.p50,
    p95Jct: jct.p95,
    p99Jct: jct.p99,
    makespan: result.makespan,
    avgQueueing: queueing.avg,
    p95Queueing: queueing.p95,
    p99Queueing: queueing.p99,
    gpuUtilization: result.busyGpuSeconds / (Math.max(1, result.totalGpus) * span),
    gpuHours: result.jobs.reduce((s, j) => s + j.gpuSeconds, 0) / 3600,
    migrations: result.jobs.reduce((s, j) => s + j.migrations, 0),
    restarts: result.jobs.reduce((s, j) => s + j.restarts, 0),
    commLatency: result.jobs.reduce((s, j) => s + j.commSeconds, 0),
    cost: result.jobs.reduce((s, j) => s + j.cost, 0),
    unpricedGpuHours: result.jobs.reduce((s, j) => s + j.unpricedGpuSeconds, 0) / 3600,
    jctLowerBound: mean(completed.map((j) => j.jctLowerBound)),
    rounds: result.rounds,
    simulatedSeconds: span,
    wallSeconds,
  };
  return Object.fromEntries(
    Object.entries(summary).map(([k, v]) => [k, typeof v === 'number' ? round3(v) : v]),
  ) as unknown as SimSummary;
};

const EPS = 1e-9;
