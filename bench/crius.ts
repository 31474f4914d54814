import { loadCluster } from '../lib/clusters/load.ts';
import { CRIUS_BATCH_SIZES } from '../lib/core/catalog/layers.ts';
import { isHolding } from '../lib/core/framework/compare.ts';
import { roundContext, scheduleRound } from '../lib/core/framework/round.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import { type JobSpec, type JobState, newJobState } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import type { Cell } from '../lib/core/model/plan.ts';
import { initialSchedulerState } from '../lib/core/model/state.ts';
import { AdaptiveParallelPerfModel } from '../lib/core/plugins/crius/adaptive-perf.ts';
import {
  type CellEstimator,
  consolidatedLayout,
  stageCountsFor,
} from '../lib/core/plugins/crius/estimator.ts';
import { jobCells } from '../lib/core/plugins/crius/job-cells.ts';
import { CRIUS_ESTIMATOR, criusPolicy, DEFAULT_CRIUS_OPTIONS } from '../lib/core/plugins/crius/policies.ts';
import { Budget, MoveCache, type SearchContext, scaleResource } from '../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../lib/core/plugins/crius/virtual.ts';
import { getPolicy, policyNames } from '../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { summarize } from '../lib/sim/summary.ts';
import { loadTrace } from '../lib/traces/load.ts';
import { sliceTrace } from '../lib/traces/slice.ts';
import { ThroughputMeter } from './cluster-throughput.ts';
import { criusWorkload, requestedGpuSeconds, TABLE2_MODELS } from './crius-workload.ts';
import { PHILLY_BUSY_WEEK_START_DAY } from './sim.ts';
import type { BenchRow, BenchSuite } from './types.ts';

/**
 * `tessera bench crius`: Crius's evaluation (§8) side by side with the paper's figures.
 * (a) crius-1280, the Philly week from day 49 (the first busy week of the shared list: ~6,900 jobs), Table-2
 *     models, GPU type drawn per job, 5-minute rounds; (b) crius-testbed-64, a 6-hour Philly slice of 244 jobs;
 * (c) estimator accuracy per model family against the executor's truth; (d) scaling-search time per job at
 * depth 1..5, and its effect on JCT at twice the arrival rate. `--quick` runs (b), the first 400 jobs of (a) and smaller (c)/(d).
 */

export const CRIUS_BENCH_POLICIES = [
  'fcfs',
  'gandiva',
  'gavel',
  'elasticflow-ls',
  'crius',
  'crius-na',
  'crius-nh',
];

/** The first 6-hour window of the list after day 49 holding exactly 244 jobs (the paper's testbed trace size). */
export const TESTBED_SKIP_DAYS = 65 + 23 / 24;

const ROUND_SECONDS = 300;
/** Checkpoint, restore and re-tune of a large model after a restart, rescale or migration. */
const RESTART_SECONDS = 60;

/** Paper figures (Crius §8): JCT reductions of Crius vs each baseline, ablation ratios, throughput. */
const PAPER = {
  'crius-1280': { fcfs: -81.3, gavel: -66.4, 'elasticflow-ls': -75.8, gandiva: -80.1 },
  'crius-testbed-64': { best: -48.9 },
  ablation: { 'crius-na': 2.54, 'crius-nh': 3.53 },
  throughput: { 'crius-1280': 1.54, 'crius-testbed-64': 1.49 },
  accuracy: { mean: 93.4, worst: 90.5 },
  searchSeconds: { 1: 0.88, 5: 5.98 },
} as const;

interface Environment {
  readonly perf: PerfModel;
  readonly truth: AdaptiveParallelPerfModel;
}

const environment = (seed: number): Environment => {
  const perf = loadDefaultPerfModel();
  const gt = groundTruthModel(perf, { seed });
  const truth = new AdaptiveParallelPerfModel({
    base: gt,
    computeSpeed: (model, type) => gt.efficiencyMultiplier(model, type),
    jobNoise: (id, allocation, query) => {
      const base = gt.throughput(query).iterationsPerSecond;
      return base > 0 ? gt.jobThroughput(id, allocation, query).iterationsPerSecond / base : 1;
    },
    maxJobNoise: gt.maxJobNoise,
  });
  return { perf, truth };
};

interface Setup {
  readonly name: string;
  readonly cluster: Cluster;
  readonly jobs: readonly JobSpec[];
}

const setup = (
  name: string,
  skipDays: number,
  days: number,
  maxJobs: number | undefined,
  env: Environment,
  seed: number,
  fit = false,
): Setup => {
  const cluster = loadCluster(name);
  const trace = sliceTrace(loadTrace('philly', { seed }), {
    skipDays,
    days,
    ...(maxJobs ? { maxJobs } : {}),
  });
  const jobs = criusWorkload({ trace, cluster, truth: env.truth, seed }).jobs;
  if (!fit) return { name, cluster, jobs };
  // Scale durations so that the slice's requested work fills the cluster for exactly the slice's length.
  const capacity = cluster.hosts.reduce((n, h) => n + h.gpuCount, 0) * days * 86_400;
  const durationScale = capacity / requestedGpuSeconds(jobs);
  return {
    name: `${name}:fit`,
    cluster,
    jobs: criusWorkload({ trace, cluster, truth: env.truth, seed, durationScale }).jobs,
  };
};

/** First to last submission: the period over which average cluster throughput is taken. */
const arrivalWindow = (jobs: readonly JobSpec[]) => ({
  start: Math.min(...jobs.map((j) => j.submitTime)),
  end: Math.max(...jobs.map((j) => j.submitTime)),
});

const round3 = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);
const pct = (x: number): string => `${x > 0 ? '+' : ''}${x.toFixed(1)} %`;

function* runSetup(s: Setup, env: Environment, seed: number, log: (m: string) => void): Generator<BenchRow> {
  const known = new Set(policyNames());
  const reference = new Map(
    s.jobs.map((j) => [j.id, j.iterations / Math.max(1, Number(j.labels?.duration ?? 1))] as const),
  );
  const results = new Map<string, BenchRow>();
  const window = arrivalWindow(s.jobs);
  for (const policy of CRIUS_BENCH_POLICIES) {
    if (!known.has(policy)) {
      log(`crius: policy ${policy} is not available in this build; skipped`);
      yield { suite: 'crius', setup: s.name, policy, missing: true };
      continue;
    }
    log(`crius: ${s.name}, ${s.jobs.length} jobs, ${policy}`);
    const meter = new ThroughputMeter(reference);
    const started = performance.now();
    const result = simulate({
      cluster: s.cluster,
      jobs: s.jobs,
      policy: getPolicy(policy),
      perf: env.perf,
      truth: env.truth,
      config: { roundSeconds: ROUND_SECONDS, restartSeconds: RESTART_SECONDS, seed },
      onRates: meter.onRates,
    });
    const summary = summarize(result, 'philly', (performance.now() - started) / 1000);
    const throughput = meter.finish(result.jobs, window);
    const row: BenchRow = {
      suite: 'crius',
      setup: s.name,
      policy,
      jobs: summary.jobs,
      completed: summary.completed,
      unschedulable: summary.unschedulable,
      avgJct: summary.avgJct,
      p50Jct: summary.p50Jct,
      avgQueueing: summary.avgQueueing,
      avgThroughput: round3(throughput.avgThroughput),
      peakThroughput: round3(throughput.peakThroughput),
      restarts: summary.restarts,
      restartsPerJob: round3(summary.restarts / Math.max(1, summary.jobs)),
      wallSeconds: summary.wallSeconds,
    };
    results.set(policy, row);
    yield row;
  }
  yield* comparisons(s.name, results);
}

/** Our ratios beside the paper's, one row each. */
function* comparisons(setupName: string, results: ReadonlyMap<string, BenchRow>): Generator<BenchRow> {
  const crius = results.get('crius');
  if (!crius) return;
  const jct = (p: string) => results.get(p)?.avgJct as number | undefined;
  const base = setupName.split(':')[0]!;
  const paper = PAPER[base as 'crius-1280'] as Readonly<Record<string, number>> | undefined;
  for (const baseline of ['fcfs', 'gandiva', 'gavel', 'elasticflow-ls']) {
    const b = jct(baseline);
    if (b === undefined) continue;
    const ours = (100 * ((crius.avgJct as number) - b)) / b;
    const theirs = paper?.[baseline];
    yield {
      suite: 'crius',
      setup: `${setupName}:compare`,
      policy: `crius vs ${baseline} (avg JCT)`,
      ratio: round3(ours),
      ours: pct(ours),
      paper:
        theirs !== undefined
          ? pct(theirs)
          : base === 'crius-testbed-64'
            ? `${pct(PAPER['crius-testbed-64'].best)} (best)`
            : '',
    };
  }
  for (const ablation of ['crius-na', 'crius-nh'] as const) {
    const a = jct(ablation);
    if (a === undefined) continue;
    const ratio = a / (crius.avgJct as number);
    yield {
      suite: 'crius',
      setup: `${setupName}:compare`,
      policy: `${ablation} / crius (avg JCT)`,
      ratio: round3(ratio),
      ours: `${ratio.toFixed(2)}×`,
      paper: `${PAPER.ablation[ablation].toFixed(2)}×`,
    };
  }
  let bestOther = 0;
  for (const [p, r] of results) {
    if (!p.startsWith('crius')) bestOther = Math.max(bestOther, r.avgThroughput as number);
  }
  if (bestOther > 0) {
    const ratio = (crius.avgThroughput as number) / bestOther;
    const worst = Math.min(
      ...[...results].filter(([p]) => !p.startsWith('crius')).map(([, r]) => r.avgThroughput as number),
    );
    const upTo = worst > 0 ? (crius.avgThroughput as number) / worst : Number.POSITIVE_INFINITY;
    const paperUpTo = PAPER.throughput[base as 'crius-1280'];
    yield {
      suite: 'crius',
      setup: `${setupName}:compare`,
      policy: 'crius avg throughput vs baselines',
      ratio: round3(upTo),
      ours: `${ratio.toFixed(2)}× the best, ${upTo.toFixed(2)}× the worst`,
      paper: paperUpTo !== undefined ? `up to ${paperUpTo.toFixed(2)}×` : '',
    };
  }
}

/**
 * (c) 1 − |T_e − T_d| / T_d of the estimator against the executor, per model family: over the Cells Crius
 * schedules (the best stage count per model, batch, type and count) and, for reference, over every feasible Cell
 * (including pipelines no scheduler would pick, where DP-only/TP-only sampling misses a good hybrid). Calibrated:
 * the (model, type) efficiency learned from the first Cell that ran corrects the others.
 */
function* estimatorAccuracy(env: Environment, cluster: Cluster, quick: boolean): Generator<BenchRow> {
  const estimator: CellEstimator = CRIUS_ESTIMATOR;
  const hostSize = new Map<string, number>();
  for (const h of cluster.hosts) hostSize.set(h.gpuType, Math.max(hostSize.get(h.gpuType) ?? 0, h.gpuCount));
  // Requests are 1–16 GPUs (2N ≤ 32): larger Cells of these models are not scheduled.
  const counts = quick ? [2, 8, 32] : [1, 2, 4, 8, 16, 32];
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
  const accuracy = (te: number, td: number) => 1 - Math.abs(te - td) / td;
  for (const [family, models] of Object.entries(TABLE2_MODELS)) {
    const chosen: number[] = [];
    const calibrated: number[] = [];
    const all: number[] = [];
    for (const model of models) {
      for (const batchSize of CRIUS_BATCH_SIZES[family as keyof typeof CRIUS_BATCH_SIZES]) {
        for (const [gpuType, largest] of hostSize) {
          let learned: number | undefined;
          for (const gpus of counts) {
            const layout = consolidatedLayout(gpus, largest);
            const shape =
              layout.level === 'machine'
                ? ({ level: 'machine', hosts: 1 } as const)
                : ({ level: 'rack', hosts: gpus / layout.gpusPerHost } as const);
            const q = { model, batchSize, gpuType, gpus, shape };
            const truthOf = (e: { cell?: Cell }) => {
              const t = e.cell ? env.truth.cellThroughput(q, e.cell).iterationsPerSecond : 0;
              return t > 0 ? 1 / t : undefined;
            };
            for (const stages of stageCountsFor(gpus, 64)) {
              const e = estimator.estimate({ model, batchSize, gpuType, gpus, stages, layout });
              const td = e.feasible ? truthOf(e) : undefined;
              if (td !== undefined) all.push(accuracy(e.iterationSeconds, td));
            }
            const best = estimator.best({ model, batchSize, gpuType, gpus, layout });
            const td = best.feasible ? truthOf(best) : undefined;
            if (td === undefined) continue;
            chosen.push(accuracy(best.iterationSeconds, td));
            if (learned === undefined) learned = best.iterationSeconds / td;
            else calibrated.push(accuracy(best.iterationSeconds / learned, td));
          }
        }
      }
    }
    const f = (x: number) => (100 * x).toFixed(1);
    yield {
      suite: 'crius',
      setup: 'estimator-accuracy',
      policy: `crius-estimator:${family}`,
      cells: chosen.length,
      meanAccuracy: round3(100 * mean(chosen)),
      worstAccuracy: round3(100 * Math.min(...chosen)),
      calibratedMean: round3(100 * mean(calibrated)),
      calibratedWorst: round3(100 * Math.min(...calibrated)),
      allCells: all.length,
      allCellsMean: round3(100 * mean(all)),
      ours: `${f(mean(chosen))} % mean, ${f(Math.min(...chosen))} % worst; calibrated ${f(mean(calibrated))} / ${f(Math.min(...calibrated))} %; all ${all.length} Cells ${f(mean(all))} %`,
      paper: `${PAPER.accuracy.mean} % mean, ${PAPER.accuracy.worst} % worst`,
    };
  }
}

/**
 * (d) Wall time of CellBasedSched(job) per waiting job on a full crius-1280: the first `standing` jobs of the
 * week arrive together, one Crius round places them; each job left waiting is then searched at depth 1..5
 * (no evaluation budget, so the depth alone bounds the search).
 */
function* searchTime(s: Setup, env: Environment, quick: boolean): Generator<BenchRow> {
  const standing = quick ? 600 : 1500;
  const specs = s.jobs.slice(0, standing).map((j) => ({ ...j, submitTime: 0 }));
  const first = scheduleRound({
    now: 0,
    cluster: s.cluster,
    jobs: specs.map(newJobState),
    state: initialSchedulerState(),
    policy: getPolicy('crius'),
    perf: env.perf,
  });
  const states: JobState[] = specs.map((spec) => {
    const allocation = first.plan.get(spec.id);
    const base = newJobState(spec);
    return allocation ? { ...base, status: 'running', allocation, runningSince: 0 } : base;
  });
  const input = {
    now: 600,
    cluster: s.cluster,
    jobs: states,
    state: initialSchedulerState(),
    policy: getPolicy('crius'),
    perf: env.perf,
  };
  const ctx = roundContext(input);
  const options = { ...DEFAULT_CRIUS_OPTIONS };
  const byId = new Map(states.map((j) => [j.spec.id, j]));
  const cells = new Map(states.map((j) => [j.spec.id, jobCells(j, ctx, options.estimator, options)]));
  const probes = states.filter((j) => !isHolding(j)).slice(0, quick ? 20 : 100);
  // depth 0 warms the JIT up and is not reported.
  for (let depth = 0; depth <= 5; depth++) {
    let seconds = 0;
    let choices = 0;
    let admitted = 0;
    for (const probe of probes) {
      const vc = new VirtualAllocation(new Map([...ctx.capacity].map(([t, c]) => [t, c.gpus])));
      for (const j of states) if (isHolding(j)) vc.assign(j.spec.id, cells.get(j.spec.id)!.current!);
      const sc: SearchContext = {
        vc,
        budget: new Budget(Number.POSITIVE_INFINITY),
        depth,
        breadth: options.breadth,
        cellsOf: (id) => (byId.has(id) ? cells.get(id) : undefined),
      };
      const started = performance.now();
      const choice = scaleResource(cells.get(probe.spec.id)!, sc, new MoveCache());
      seconds += (performance.now() - started) / 1000;
      choices += sc.budget.used;
      if (choice) admitted++;
    }
    if (depth === 0) continue;
    const paper = PAPER.searchSeconds[depth as 1 | 5];
    yield {
      suite: 'crius',
      setup: `search-depth:${s.cluster.name}`,
      policy: 'crius',
      depth,
      runningJobs: states.filter(isHolding).length,
      probes: probes.length,
      admitted,
      secondsPerJob: Number((seconds / Math.max(1, probes.length)).toPrecision(3)),
      choicesPerJob: Math.round(choices / Math.max(1, probes.length)),
      ours: `${((1000 * seconds) / Math.max(1, probes.length)).toFixed(2)} ms/job`,
      paper: paper !== undefined ? `${paper} s/job` : '',
    };
  }
}

/**
 * (d') The effect of depth on scheduling (Crius §8.7: deeper search cut JCT by 14.6 % under extremely heavy load):
 * the fitted testbed slice with arrivals twice as dense, Crius at depth 1..5.
 */
function* depthEffect(
  s: Setup,
  env: Environment,
  seed: number,
  log: (m: string) => void,
): Generator<BenchRow> {
  const dense = s.jobs.map((j) => ({ ...j, submitTime: j.submitTime / 2 }));
  const reference = new Map(
    dense.map((j) => [j.id, j.iterations / Math.max(1, Number(j.labels?.duration ?? 1))] as const),
  );
  let first: number | undefined;
  for (let depth = 1; depth <= 5; depth++) {
    log(`crius: depth ${depth} on ${s.name} at twice the arrival rate`);
    const meter = new ThroughputMeter(reference);
    const result = simulate({
      cluster: s.cluster,
      jobs: dense,
      policy: criusPolicy(`crius-depth-${depth}`, `Crius with search depth ${depth}`, { depth }),
      perf: env.perf,
      truth: env.truth,
      config: { roundSeconds: ROUND_SECONDS, restartSeconds: RESTART_SECONDS, seed },
      onRates: meter.onRates,
    });
    const summary = summarize(result, 'philly', 0);
    const throughput = meter.finish(result.jobs, arrivalWindow(dense));
    first ??= summary.avgJct;
    const change = (100 * (summary.avgJct - first)) / first;
    yield {
      suite: 'crius',
      setup: `depth-effect:${s.name}:2x-load`,
      policy: `crius depth ${depth}`,
      depth,
      completed: summary.completed,
      avgJct: summary.avgJct,
      avgQueueing: summary.avgQueueing,
      avgThroughput: round3(throughput.avgThroughput),
      peakThroughput: round3(throughput.peakThroughput),
      restarts: summary.restarts,
      ours: depth === 1 ? '' : `${pct(change)} avg JCT vs depth 1`,
      paper: depth === 5 ? '-14.6 % avg JCT (depth raised), +1.03 % throughput' : '',
    };
  }
}

export const criusSuite: BenchSuite = {
  name: 'crius',
  description:
    'Crius reproduction: crius-1280 Philly week and the 64-GPU testbed slice (fcfs, gandiva, gavel, elasticflow-ls, crius, crius-na, crius-nh), estimator accuracy, search time by depth; paper figures beside ours',
  columns: [
    'setup',
    'policy',
    'completed',
    'avgJct',
    'avgQueueing',
    'avgThroughput',
    'peakThroughput',
    'restarts',
    'ours',
    'paper',
  ],
  *run({ quick, seed, log }) {
    const env = environment(seed);
    log('crius: building the testbed workload');
    const testbed = setup('crius-testbed-64', TESTBED_SKIP_DAYS, 0.25, 244, env, seed);
    yield* runSetup(testbed, env, seed, log);
    // A physical testbed replays a slice in hours: the same slice with durations scaled to fill the 6 hours.
    const fitted = setup('crius-testbed-64', TESTBED_SKIP_DAYS, 0.25, 244, env, seed, true);
    yield* runSetup(fitted, env, seed, log);
    log(
      `crius: building the crius-1280 workload (${quick ? 'its first 400 jobs' : 'one week'} from day ${PHILLY_BUSY_WEEK_START_DAY})`,
    );
    const large = setup('crius-1280', PHILLY_BUSY_WEEK_START_DAY, 7, quick ? 400 : undefined, env, seed);
    yield* runSetup(large, env, seed, log);
    log('crius: estimator accuracy');
    yield* estimatorAccuracy(env, large.cluster, quick);
    log('crius: scaling-search time by depth');
    yield* searchTime(
      quick ? setup('crius-1280', PHILLY_BUSY_WEEK_START_DAY, 7, 1_200, env, seed) : large,
      env,
      quick,
    );
    yield* depthEffect(fitted, env, seed, log);
  },
};
