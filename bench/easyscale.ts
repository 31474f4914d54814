import { loadCluster } from '../lib/clusters/load.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import { totalGpus } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { getPolicy } from '../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { type ExecutorModel, type SimResult, simulate, type TimePoint } from '../lib/sim/simulator.ts';
import { summarize } from '../lib/sim/summary.ts';
import { readPhillyTrace } from '../lib/traces/load.ts';
import { sliceTrace } from '../lib/traces/slice.ts';
import type { TraceJob } from '../lib/traces/types.ts';
import { easyScaleWorkload, phillyRows } from './easyscale-workload.ts';
import { PHILLY_BUSY_WEEK_START_DAY } from './sim.ts';
import type { BenchRow, BenchSuite } from './types.ts';

/** The paper's trace experiment (§5.2): improvement over YARN-CS, avg JCT and makespan (Fig. 14). */
export const PAPER_SPEEDUPS = {
  'easyscale-homo': { avgJct: 8.3, makespan: 2.5 },
  easyscale: { avgJct: 13.2, makespan: 2.8 },
} as const;

export const EASYSCALE_BENCH_POLICIES = ['yarn-cs', 'easyscale-homo', 'easyscale', 'tessera'] as const;

/** Rounds every 60 s and 20 s per reallocation, as the authors' artifact simulator. */
export const EASYSCALE_SIM = { roundSeconds: 60, restartSeconds: 20 } as const;

/**
 * Workload sizes. Trace: Philly jobs from the busy period, offered load 1 (the arrivals bring as much work as the
 * cluster can do while they arrive). Mixed: a guaranteed (rigid) workload at half the cluster plus as much elastic
 * best-effort work, from interleaved Philly rows.
 */
export const EASYSCALE_WORKLOADS = {
  full: { traceJobs: 200, traceLoad: 1, mixedJobs: 120, guaranteedLoad: 0.5, elasticLoad: 0.5 },
  quick: { traceJobs: 60, traceLoad: 1, mixedJobs: 40, guaranteedLoad: 0.5, elasticLoad: 0.5 },
} as const;

const CLUSTER = 'easyscale-64';

export const easyscaleSuite: BenchSuite = {
  name: 'easyscale',
  description:
    'EasyScale (specs/easyscale.md §5): easyscale-64, Philly arrivals, Table 1 models; yarn-cs vs easyscale-homo vs easyscale (avg JCT and makespan ratios), and elastic jobs filling idle GPUs beside a guaranteed workload',
  columns: [
    'setup',
    'policy',
    'completed',
    'avgJct',
    'makespan',
    'gpuUtilization',
    'restarts',
    'jctSpeedup',
    'paperJctSpeedup',
    'makespanSpeedup',
    'paperMakespanSpeedup',
    'guaranteedAvgJct',
    'guaranteedJctChange',
    'elasticAvgJct',
  ],
  *run({ quick, seed, log }) {
    const sizes = quick ? EASYSCALE_WORKLOADS.quick : EASYSCALE_WORKLOADS.full;
    const cluster = loadCluster(CLUSTER);
    const perf = loadDefaultPerfModel();
    const truth = groundTruthModel(perf, { seed });
    const philly = sliceTrace(readPhillyTrace(), {
      skipDays: PHILLY_BUSY_WEEK_START_DAY,
    });

    const traceRows = phillyRows(philly, sizes.traceJobs);
    const traceJobs = easyScaleWorkload(traceRows, {
      jobs: sizes.traceJobs,
      seed,
      load: sizes.traceLoad,
      cluster,
      perf,
      idPrefix: 'es',
      elastic: true,
    });
    const setup = `trace/philly-${sizes.traceJobs}-load${sizes.traceLoad}`;
    yield* traceExperiment({ setup, cluster, jobs: traceJobs, perf, truth, seed, log });

    const rows = phillyRows(philly, 2 * sizes.mixedJobs);
    yield* mixedExperiment({
      cluster,
      guaranteedRows: rows.filter((_, i) => i % 2 === 0),
      elasticRows: rows.filter((_, i) => i % 2 === 1),
      guaranteedLoad: sizes.guaranteedLoad,
      elasticLoad: sizes.elasticLoad,
      perf,
      truth,
      seed,
      log,
    });
  },
};

interface Experiment {
  readonly cluster: Cluster;
  readonly perf: PerfModel;
  readonly truth: ExecutorModel;
  readonly seed: number;
  readonly log: (message: string) => void;
}

const run = (
  e: Experiment,
  jobs: readonly JobSpec[],
  policy: string,
  what: string,
): { result: SimResult; wall: number } => {
  e.log(`easyscale: ${what}, ${policy}`);
  const started = performance.now();
  const result = simulate({
    cluster: e.cluster,
    jobs,
    policy: getPolicy(policy),
    perf: e.perf,
    truth: e.truth,
    config: { ...EASYSCALE_SIM, seed: e.seed },
  });
  return { result, wall: (performance.now() - started) / 1000 };
};

/** yarn-cs, easyscale-homo, easyscale on the same elastic jobs: speedups over yarn-cs beside the paper's. */
export function* traceExperiment(
  e: Experiment & { readonly setup: string; readonly jobs: readonly JobSpec[] },
): Generator<BenchRow> {
  let baseline: { avgJct: number; makespan: number } | undefined;
  for (const policy of EASYSCALE_BENCH_POLICIES) {
    const { result, wall } = run(e, e.jobs, policy, e.setup);
    const s = summarize(result, e.setup, wall);
    baseline ??= { avgJct: s.avgJct, makespan: s.makespan };
    const paper = policy === 'yarn-cs' || policy === 'tessera' ? undefined : PAPER_SPEEDUPS[policy];
    yield {
      suite: 'easyscale',
      setup: e.setup,
      cluster: e.cluster.name,
      policy,
      jobs: s.jobs,
      completed: s.completed,
      avgJct: s.avgJct,
      p95Jct: s.p95Jct,
      makespan: s.makespan,
      gpuUtilization: s.gpuUtilization,
      avgQueueing: s.avgQueueing,
      restarts: s.restarts,
      jctSpeedup: round2(baseline.avgJct / s.avgJct),
      makespanSpeedup: round2(baseline.makespan / s.makespan),
      ...(paper ? { paperJctSpeedup: paper.avgJct, paperMakespanSpeedup: paper.makespan } : {}),
      wallSeconds: s.wallSeconds,
    };
  }
}

/**
 * Elastic jobs beside a guaranteed workload: the guaranteed jobs alone under yarn-cs; with elastic jobs under
 * easyscale (they soak up the idle GPUs and yield); and, for contrast, the same extra jobs as rigid gangs under
 * yarn-cs. Utilisation is measured over the guaranteed-only run's span, so the three rows compare the same hours.
 */
export function* mixedExperiment(
  e: Experiment & {
    readonly guaranteedRows: readonly TraceJob[];
    readonly elasticRows: readonly TraceJob[];
    readonly guaranteedLoad: number;
    readonly elasticLoad: number;
  },
): Generator<BenchRow> {
  const common = { seed: e.seed, cluster: e.cluster, perf: e.perf };
  const guaranteed = easyScaleWorkload(e.guaranteedRows, {
    ...common,
    jobs: e.guaranteedRows.length,
    load: e.guaranteedLoad,
    idPrefix: 'g',
    elastic: false,
    phillySizes: true,
  });
  const elastic = easyScaleWorkload(e.elasticRows, {
    ...common,
    jobs: e.elasticRows.length,
    load: e.elasticLoad,
    idPrefix: 'e',
    elastic: true,
  });
  const rigid = elastic.map(({ elastic: _, ...spec }) => spec);
  const base = `mixed/guaranteed-${guaranteed.length}-load${e.guaranteedLoad}`;
  const variants = [
    { setup: `${base}`, policy: 'yarn-cs', jobs: guaranteed },
    { setup: `${base}+elastic-${elastic.length}`, policy: 'easyscale', jobs: [...guaranteed, ...elastic] },
    { setup: `${base}+rigid-${rigid.length}`, policy: 'yarn-cs', jobs: [...guaranteed, ...rigid] },
  ];
  let window = 0;
  let baseline: { utilization: number; guaranteedAvgJct: number } | undefined;
  for (const v of variants) {
    const { result, wall } = run(e, v.jobs, v.policy, v.setup);
    const s = summarize(result, v.setup, wall);
    window ||= result.makespan;
    const utilization =
      busyGpuSeconds(result.timeline, result.startTime, result.startTime + window) /
      (totalGpus(e.cluster) * window);
    const jctOf = (prefix: string) =>
      mean(result.jobs.filter((j) => j.id.startsWith(prefix) && j.jct !== undefined).map((j) => j.jct!));
    const guaranteedAvgJct = jctOf('g');
    baseline ??= { utilization, guaranteedAvgJct };
    const extra = result.jobs.filter((j) => !j.id.startsWith('g'));
    yield {
      suite: 'easyscale',
      setup: v.setup,
      cluster: e.cluster.name,
      policy: v.policy,
      jobs: s.jobs,
      completed: s.completed,
      avgJct: s.avgJct,
      makespan: s.makespan,
      gpuUtilization: round3(utilization),
      utilizationGain: round3(utilization - baseline.utilization),
      restarts: s.restarts,
      guaranteedAvgJct: round2(guaranteedAvgJct),
      guaranteedJctChange: round3((guaranteedAvgJct - baseline.guaranteedAvgJct) / baseline.guaranteedAvgJct),
      ...(extra.length > 0
        ? {
            elasticAvgJct: round2(mean(extra.filter((j) => j.jct !== undefined).map((j) => j.jct!))),
            extraCompleted: extra.filter((j) => j.outcome === 'completed').length,
          }
        : {}),
      wallSeconds: s.wallSeconds,
    };
  }
}

/** GPU-seconds busy in [from, to]: busy counts change only at rounds, and every round leaves a timeline point. */
export const busyGpuSeconds = (timeline: readonly TimePoint[], from: number, to: number): number => {
  let total = 0;
  timeline.forEach((p, i) => {
    const start = Math.max(p.t, from);
    const end = Math.min(timeline[i + 1]?.t ?? to, to);
    if (end > start) total += p.busyGpus * (end - start);
  });
  return total;
};

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? Number.NaN : xs.reduce((s, x) => s + x, 0) / xs.length;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;
