import { getPolicy, policyNames } from '../lib/core/policies.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { offeredLoad } from '../lib/sim/offered-load.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { type SimSummary, summarize } from '../lib/sim/summary.ts';
import { formatFlagshipReport } from './flagship-report.ts';
import { type FlagshipWorkload, flagshipPerf, flagshipSetups, traceFileSetup } from './flagship-setups.ts';
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
    'cpuSeconds',
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
    'cpuRatio',
    'meetsTargets',
    'misses',
  ],
  formatText: formatFlagshipReport,
  *run({ quick, seed, log, lengthNoise = 1, heldOut = false, only, trace }) {
    const perf = flagshipPerf();
    const truth = groundTruthModel(perf, { seed });
    const others = otherPolicies(quick);
    const setups = trace
      ? [traceFileSetup(trace.path, trace.cluster)]
      : chosenSetups(flagshipSetups({ quick, heldOut }), only);
    for (const setup of setups) {
      const w = setup.build(perf, truth, seed);
      const load = offeredLoad(w.jobs, w.cluster, truth, w.reference);
      // tessera runs last: the first simulation in a process also pays for compiling the shared simulator and
      // framework code, which would count against whichever policy went first.
      const summaries = yield* runSetup(setup.name, w, [...others, FLAGSHIP], {
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
): Generator<BenchRow, MeasuredSummary[]> {
  const summaries: MeasuredSummary[] = [];
  for (const name of policies) {
    env.log(`flagship: ${setup} (${w.jobs.length} jobs), ${name}`);
    const started = performance.now();
    const cpu = process.cpuUsage();
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
    const used = process.cpuUsage(cpu);
    const s = {
      ...summarize(result, setup, (performance.now() - started) / 1000),
      cpuSeconds: round3((used.user + used.system) / 1e6),
    };
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
      cpuSeconds: s.cpuSeconds,
    };
  }
  return summaries;
}

/** The setups whose names contain `only` (all without it); none is an error that lists the names. */
export const chosenSetups = <S extends { readonly name: string }>(
  setups: readonly S[],
  only?: string,
): S[] => {
  const chosen = setups.filter((s) => only === undefined || s.name.includes(only));
  if (chosen.length === 0)
    throw new Error(`no flagship setup matches "${only}"; setups: ${setups.map((s) => s.name).join(', ')}`);
  return chosen;
};

/** A policy's summary on one setup, with the process CPU seconds its simulation took (steadier than wall time on a
 * shared machine; GC threads included). */
export type MeasuredSummary = SimSummary & { readonly cpuSeconds?: number };

/**
 * tessera against the others of one setup. Only policies that completed as many jobs as the most any policy
 * completed compete (a policy that drops or strands jobs would look fast on the rest); each ratio is against the
 * best of them on that metric.
 */
export const comparisonRow = (
  setup: string,
  summaries: readonly MeasuredSummary[],
  offeredLoad: number,
): BenchRow => {
  const flagship = summaries.find((s) => s.policy === FLAGSHIP)!;
  const most = Math.max(...summaries.map((s) => s.completed));
  const others = summaries.filter((s) => s.policy !== FLAGSHIP && s.completed === most);
  const bestBy = (m: RatioMetric) => others.reduce((a, b) => (b[m] < a[m] ? b : a), others[0] ?? flagship);
  // No ratio where the best is 0, nor a cost ratio where some GPU time has no EC2 price (it would compare only the
  // priced part of each policy's GPU time).
  const ratio = (m: RatioMetric) => {
    const best = bestBy(m);
    if (m === 'cost' && (flagship.unpricedGpuHours > 0 || best.unpricedGpuHours > 0)) return Number.NaN;
    return best[m] > 0 ? round3(flagship[m] / best[m]) : Number.NaN;
  };
  const baselines = summaries.filter((s) => SPEED_BASELINES.includes(s.policy));
  const slowest = Math.max(...baselines.map((s) => s.wallSeconds));
  const slowestCpu = Math.max(...baselines.map((s) => s.cpuSeconds ?? Number.NaN));
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
    wallRatio: timeRatio(flagship.wallSeconds, slowest),
    cpuRatio: timeRatio(flagship.cpuSeconds ?? Number.NaN, slowestCpu),
  };
  const misses = targetMisses(
    row,
    flagship.completed === most ? undefined : { tessera: flagship.completed, most },
  );
  return { ...row, meetsTargets: misses.length === 0, misses: misses.join('; ') };
};

/** Which of issue 11's targets a comparison row misses, each as `metric value > target` (empty: all met). */
export const targetMisses = (
  r: {
    avgJctRatio: number;
    p99JctRatio: number;
    makespanRatio: number;
    jctOverLowerBound: number;
    offeredLoad: number;
    wallRatio: number;
  },
  fewerCompleted?: { tessera: number; most: number },
): string[] => {
  const t = FLAGSHIP_TARGETS;
  const over = (name: string, value: number, target: number) =>
    value > target ? [`${name} ${value} > ${target}`] : [];
  return [
    ...(fewerCompleted ? [`completed ${fewerCompleted.tessera} < ${fewerCompleted.most}`] : []),
    ...over('avg', r.avgJctRatio, t.avgJct),
    ...over('p99', r.p99JctRatio, t.p99Jct),
    ...over('makespan', r.makespanRatio, t.makespan),
    ...(r.offeredLoad <= t.lowerBoundLoad ? over('avg÷LB', r.jctOverLowerBound, t.lowerBound) : []),
    ...over('wall', r.wallRatio, t.wall),
  ];
};

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Seconds ÷ seconds; none (NaN) where the baselines took too little time to measure (a one-job trace). */
const timeRatio = (ours: number, slowest: number): number =>
  slowest > 0 ? round3(ours / slowest) : Number.NaN;
