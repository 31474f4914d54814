import { loadCluster } from '../lib/clusters/load.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import { totalGpus } from '../lib/core/model/cluster.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { dallyPerfParameters } from '../lib/core/plugins/dally/perf.ts';
import { getPolicy } from '../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { summarize } from '../lib/sim/summary.ts';
import { readPhillyTrace } from '../lib/traces/load.ts';
import { type DallyArrivals, dallyWorkload } from './dally-workload.ts';
import type { BenchRow, BenchSuite } from './types.ts';

export const DALLY_BENCH_CLUSTERS = ['dally-2r', 'dally-4r', 'dally-8r', 'dally-16r'];
export const DALLY_BENCH_POLICIES = [
  'gandiva',
  'tiresias',
  'dally-manual',
  'dally-nowait',
  'dally-full',
  'dally',
  'tessera',
];

/** The paper's workloads: 500 jobs arriving at once, ~400 Poisson arrivals (--quick: 100 and 80). */
export const DALLY_WORKLOADS = {
  full: { batch: 500, poisson: 400 },
  quick: { batch: 100, poisson: 80 },
} as const;

/** Simulator settings: Dally's timers are hours, so a 5-minute round loses nothing and keeps 48 runs quick. */
export const DALLY_SIM = { roundSeconds: 300, restartSeconds: 30 } as const;

/** Offered load of the Poisson workload: the cluster just keeps up at peak (the paper's "congested" regime). */
export const DALLY_POISSON_LOAD = 1;

/** Metrics of a row, in seconds (commLatency: total exposed communication seconds over all jobs). */
export const DALLY_METRICS = [
  'makespan',
  'avgJct',
  'p50Jct',
  'p95Jct',
  'p99Jct',
  'p95Queueing',
  'p99Queueing',
  'commLatency',
] as const;

/** The metrics compared with Tiresias on every row, as a relative change in percent (−30 = 30 % lower). */
export const COMPARED = ['makespan', 'avgJct', 'p95Queueing', 'p99Queueing', 'commLatency'] as const;
type Compared = (typeof COMPARED)[number];

/**
 * The paper's headline changes of Dally vs Tiresias (percent; best = the largest reduction over its setups).
 * Queueing figures are the ranges over cluster sizes, the best end as `best` and the midpoint as `mean`.
 */
export const PAPER_VS_TIRESIAS: Readonly<Record<Compared, { best: number; mean: number; note: string }>> = {
  makespan: { best: -69, mean: -68, note: 'batch, Fig. 7' },
  avgJct: { best: -36, mean: -26, note: 'batch −19…−36 %, Poisson −16…−34 % (Fig. 13)' },
  p95Queueing: { best: -71, mean: -64.5, note: '−58…−71 % (Fig. 8a)' },
  p99Queueing: { best: -78, mean: -72.5, note: '−67…−78 % (Fig. 8a)' },
  commLatency: { best: -83, mean: -66, note: '−53…−83 % (Fig. 8b)' },
};

export const dallySuite: BenchSuite = {
  name: 'dally',
  description:
    'Dally (specs/dally.md §6): dally-2r…16r, Philly-derived batch and Poisson workloads of Table I models; Gandiva, Tiresias and the Dally variants',
  columns: [
    'setup',
    'policy',
    'completed',
    ...DALLY_METRICS,
    'makespanVsTiresias',
    'avgJctVsTiresias',
    'commLatencyVsTiresias',
  ],
  *run({ quick, seed, log }) {
    const perf = loadDefaultPerfModel({ parameters: dallyPerfParameters() });
    const truth = groundTruthModel(perf, { seed });
    const philly = readPhillyTrace();
    const sizes = quick ? DALLY_WORKLOADS.quick : DALLY_WORKLOADS.full;
    const all: BenchRow[] = [];
    for (const clusterName of DALLY_BENCH_CLUSTERS) {
      const cluster = loadCluster(clusterName);
      for (const arrivals of ['batch', 'poisson'] as const satisfies readonly DallyArrivals[]) {
        const { jobs } = dallyWorkload(philly, {
          arrivals,
          jobs: sizes[arrivals],
          seed,
          load: DALLY_POISSON_LOAD,
          clusterGpus: totalGpus(cluster),
          referenceGpuType: cluster.hosts[0]!.gpuType,
          perf,
        });
        const setup = `${clusterName}/${arrivals}-${sizes[arrivals]}`;
        const rows = runDallySetup({ setup, cluster, arrivals, jobs, perf, truth, seed, log });
        const compared = withChangeVsTiresias(rows);
        all.push(...compared);
        yield* compared;
      }
    }
    for (const line of paperComparison(all)) log(line);
  },
};

export interface DallySetup {
  readonly setup: string;
  readonly cluster: Cluster;
  readonly arrivals: DallyArrivals;
  readonly jobs: readonly JobSpec[];
  readonly perf: PerfModel;
  readonly truth: PerfModel;
  readonly seed: number;
  readonly policies?: readonly string[];
  readonly log?: (message: string) => void;
}

/** Simulates every policy on one cluster and workload: one row per policy, metrics in seconds. */
export const runDallySetup = (s: DallySetup): BenchRow[] =>
  (s.policies ?? DALLY_BENCH_POLICIES).map((policyName) => {
    s.log?.(`dally: ${s.setup}, ${policyName}`);
    const started = performance.now();
    const result = simulate({
      cluster: s.cluster,
      jobs: s.jobs,
      policy: getPolicy(policyName),
      perf: s.perf,
      truth: s.truth,
      config: { ...DALLY_SIM, seed: s.seed },
    });
    const summary = summarize(result, s.setup, (performance.now() - started) / 1000);
    return {
      suite: 'dally',
      setup: s.setup,
      cluster: s.cluster.name,
      arrivals: s.arrivals,
      policy: policyName,
      jobs: summary.jobs,
      completed: summary.completed,
      ...Object.fromEntries(DALLY_METRICS.map((m) => [m, summary[m]])),
      avgQueueing: summary.avgQueueing,
      restarts: summary.restarts,
      migrations: summary.migrations,
      wallSeconds: summary.wallSeconds,
    };
  });

/** Each row with `<metric>VsTiresias`: its change relative to Tiresias's row of the same setup, in percent. */
export const withChangeVsTiresias = (rows: readonly BenchRow[]): BenchRow[] =>
  rows.map((row) => {
    const base = rows.find((r) => r.setup === row.setup && r.policy === 'tiresias');
    if (!base) return row;
    const changes: Record<string, number> = {};
    for (const metric of COMPARED) changes[`${metric}VsTiresias`] = change(row[metric], base[metric]);
    return { ...row, ...changes };
  });

const change = (ours: unknown, base: unknown): number =>
  typeof ours === 'number' && typeof base === 'number' && base > 0
    ? Math.round((ours / base - 1) * 1000) / 10
    : Number.NaN;

export interface ChangeSummary {
  readonly metric: Compared;
  readonly arrivals: string;
  readonly best: number;
  readonly mean: number;
  readonly setups: number;
}

/** Dally's best (most negative) and mean change vs Tiresias per metric and arrival pattern. */
export const summarizeDallyVsTiresias = (rows: readonly BenchRow[], policy = 'dally'): ChangeSummary[] => {
  const out: ChangeSummary[] = [];
  for (const arrivals of ['batch', 'poisson']) {
    const mine = rows.filter((r) => r.policy === policy && r.arrivals === arrivals);
    for (const metric of COMPARED) {
      const values = mine.map((r) => r[`${metric}VsTiresias`]).filter((v): v is number => Number.isFinite(v));
      if (values.length === 0) continue;
      out.push({
        metric,
        arrivals,
        best: Math.min(...values),
        mean: Math.round((values.reduce((s, v) => s + v, 0) / values.length) * 10) / 10,
        setups: values.length,
      });
    }
  }
  return out;
};

/** Human-readable lines: our change vs Tiresias beside the paper's. */
export const paperComparison = (rows: readonly BenchRow[]): string[] => {
  const lines = [
    'dally vs tiresias (change in %; negative = better): ours best / mean  |  paper best / mean',
  ];
  for (const s of summarizeDallyVsTiresias(rows)) {
    const paper = PAPER_VS_TIRESIAS[s.metric];
    lines.push(
      `  ${s.arrivals.padEnd(7)} ${s.metric.padEnd(12)} ${fmt(s.best)} / ${fmt(s.mean)} over ${s.setups}  |  ${fmt(paper.best)} / ${fmt(paper.mean)}  (${paper.note})`,
    );
  }
  return lines;
};

const fmt = (v: number): string => `${v > 0 ? '+' : ''}${v.toFixed(1)}`.padStart(6);
