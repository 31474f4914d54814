import { getPolicy, policyNames } from '../lib/core/policies.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { offeredLoad } from '../lib/sim/offered-load.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { type SimSummary, summarize } from '../lib/sim/summary.ts';
import { type FlagshipWorkload, flagshipPerf, flagshipSetups } from './flagship-setups.ts';
import type { BenchRow, BenchSuite } from './types.ts';

export const FLAGSHIP = 'tessera';
/** Aliases are not other policies. */
const ALIASES = new Set(['fcfs']);
/** The quick run's others: one per family, the strongest of each in the full run. */
const QUICK_OTHERS = ['fifo', 'tiresias', 'srtf', 'tesserae-t', 'crius', 'dally', 'easyscale'];
/** Speed is compared with the slowest of these plain baselines. */
const SPEED_BASELINES = ['fifo', 'tiresias', 'srtf'];

/** Issue 11's targets: tessera ÷ the best other policy, per metric; avg JCT ÷ lower bound where load ≤ 0.8. */
export const FLAGSHIP_TARGETS = {
  avgJct: 1.05,
  p99Jct: 1.1,
  makespan: 1.1,
  lowerBound: 1.5,
  lowerBoundLoad: 0.8,
  wall: 2,
} as const;

/** Metrics compared side by side; lower is better for each. */
export const RATIO_METRICS = ['avgJct', 'p50Jct', 'p99Jct', 'makespan', 'gpuHours', 'cost'] as const;
type RatioMetric = (typeof RATIO_METRICS)[number];

export const otherPolicies = (quick: boolean): string[] =>
  quick ? QUICK_OTHERS : policyNames().filter((p) => p !== FLAGSHIP && !ALIASES.has(p));

export const flagshipSuite: BenchSuite = {
  name: 'flagship',
  description:
    'tessera against every other policy on a matrix of setups: per setup, the best other policy and tessera ÷ best ratios (avg/p50/p99 JCT, makespan, GPU-hours, cost), avg JCT ÷ lower bound, offered load, wall seconds',
  columns: [
    'setup',
    'policy',
    'completed',
    'avgJct',
    'p50Jct',
    'p99Jct',
    'makespan',
    'gpuHours',
    'wallSeconds',
    'best',
    'avgJctRatio',
    'p50JctRatio',
    'p99JctRatio',
    'makespanRatio',
    'gpuHoursRatio',
    'costRatio',
    'jctOverLowerBound',
    'offeredLoad',
    'wallRatio',
    'meetsTargets',
  ],
  *run({ quick, seed, log, lengthNoise = 1, heldOut = false }) {
    const perf = flagshipPerf();
    const truth = groundTruthModel(perf, { seed });
    const others = otherPolicies(quick);
    for (const setup of flagshipSetups({ quick, heldOut })) {
      const w = setup.build(perf, truth, seed);
      const load = offeredLoad(w.jobs, w.cluster, truth, w.referenceGpuType);
      const summaries = yield* runSetup(setup.name, w, [FLAGSHIP, ...others], {
        perf,
        truth,
        seed,
        log,
        lengthNoise,
      });
      yield comparisonRow(setup.name, summaries, load);
    }
  },
};

/** Simulates each policy on one workload, a row per policy; returns their summaries. */
export function* runSetup(
  setup: string,
  w: FlagshipWorkload,
  policies: readonly string[],
  env: {
    perf: ReturnType<typeof flagshipPerf>;
    truth: ReturnType<typeof groundTruthModel>;
    seed: number;
    log: (m: string) => void;
    lengthNoise: number;
  },
): Generator<BenchRow, SimSummary[]> {
  const summaries: SimSummary[] = [];
  for (const name of policies) {
    env.log(`flagship: ${setup} (${w.jobs.length} jobs), ${name}`);
    const started = performance.now();
    const result = simulate({
      cluster: w.cluster,
      jobs: w.jobs,
      policy: getPolicy(name),
      perf: env.perf,
      truth: env.truth,
      config: {
        roundSeconds: w.roundSeconds,
        restartSeconds: w.restartSeconds,
        seed: env.seed,
        lengthNoise: env.lengthNoise,
      },
    });
    const s = summarize(result, setup, (performance.now() - started) / 1000);
    summaries.push(s);
    yield {
      suite: 'flagship',
      setup: setup,
      policy: name,
      jobs: s.jobs,
      completed: s.completed,
      avgJct: s.avgJct,
      p50Jct: s.p50Jct,
      p99Jct: s.p99Jct,
      makespan: s.makespan,
      gpuHours: s.gpuHours,
      cost: s.cost,
      migrations: s.migrations,
      restarts: s.restarts,
      jctLowerBound: s.jctLowerBound,
      wallSeconds: s.wallSeconds,
    };
  }
  return summaries;
}

/**
 * tessera against the others of one setup. Only policies that completed as many jobs as the most any policy
 * completed compete (a policy that drops or strands jobs would look fast on the rest); each ratio is against the
 * best of them on that metric.
 */
export const comparisonRow = (
  setup: string,
  summaries: readonly SimSummary[],
  offeredLoad: number,
): BenchRow => {
  const flagship = summaries.find((s) => s.policy === FLAGSHIP)!;
  const most = Math.max(...summaries.map((s) => s.completed));
  const others = summaries.filter((s) => s.policy !== FLAGSHIP && s.completed === most);
  const bestBy = (m: RatioMetric) => others.reduce((a, b) => (b[m] < a[m] ? b : a), others[0] ?? flagship);
  // No ratio where the best is 0 (e.g. cost on GPU types without an EC2 price).
  const ratio = (m: RatioMetric) => {
    const best = bestBy(m)[m];
    return best > 0 ? round3(flagship[m] / best) : Number.NaN;
  };
  const slowest = Math.max(
    ...summaries.filter((s) => SPEED_BASELINES.includes(s.policy)).map((s) => s.wallSeconds),
  );
  const row = {
    suite: 'flagship',
    setup,
    policy: `${FLAGSHIP}÷best`,
    completed: flagship.completed,
    best: bestBy('avgJct').policy,
    avgJctRatio: ratio('avgJct'),
    p50JctRatio: ratio('p50Jct'),
    p99JctRatio: ratio('p99Jct'),
    makespanRatio: ratio('makespan'),
    gpuHoursRatio: ratio('gpuHours'),
    costRatio: ratio('cost'),
    jctOverLowerBound: round3(flagship.avgJct / Math.max(1e-9, flagship.jctLowerBound)),
    offeredLoad,
    wallRatio: round3(flagship.wallSeconds / Math.max(1e-9, slowest)),
  };
  return { ...row, meetsTargets: meetsTargets(row, flagship.completed === most) };
};

const meetsTargets = (
  r: {
    avgJctRatio: number;
    p99JctRatio: number;
    makespanRatio: number;
    jctOverLowerBound: number;
    offeredLoad: number;
    wallRatio: number;
  },
  completedMost: boolean,
): boolean =>
  completedMost &&
  r.avgJctRatio <= FLAGSHIP_TARGETS.avgJct &&
  r.p99JctRatio <= FLAGSHIP_TARGETS.p99Jct &&
  r.makespanRatio <= FLAGSHIP_TARGETS.makespan &&
  r.wallRatio <= FLAGSHIP_TARGETS.wall &&
  (!(r.offeredLoad <= FLAGSHIP_TARGETS.lowerBoundLoad) || r.jctOverLowerBound <= FLAGSHIP_TARGETS.lowerBound);

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
