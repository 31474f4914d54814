import { loadCluster } from '../lib/clusters/load.ts';
import { scheduleRound } from '../lib/core/framework/round.ts';
import type { Policy } from '../lib/core/framework/stages.ts';
import type { Cluster } from '../lib/core/model/cluster.ts';
import { type JobSpec, newJobState } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { getPolicy } from '../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../lib/data/perf.ts';
import { groundTruthModel } from '../lib/sim/ground-truth.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { summarize } from '../lib/sim/summary.ts';
import { benchCluster, standingJobs } from './round.ts';
import { finishTimeFairness } from './tesserae-metrics.ts';
import { type TesseraeTraceShape, tesseraeWorkload } from './tesserae-workload.ts';
import type { BenchRow, BenchSuite } from './types.ts';

/** Tesserae's figures (abstract and §6–7), printed beside ours. */
export const TESSERAE_PAPER = {
  avgJctSpeedup: 1.62,
  makespanSpeedup: 1.15,
  fewerMigrationsThanGavelRule: 0.36,
  secondsAt256Gpus2048Jobs: 1.6,
  secondsAt256Gpus3000Jobs: 1.0,
} as const;

export interface SimSetup {
  readonly cluster: string;
  readonly shape: TesseraeTraceShape;
  readonly jobs: number;
  readonly policies: readonly string[];
}

const BASELINES = ['tiresias', 'tiresias-single', 'gavel'] as const;
const MAIN = 'tesserae-t';
const NAIVE = 'tesserae-t-naive';

const FULL_SETUPS: readonly SimSetup[] = [
  {
    cluster: 'tesserae-80',
    shape: 'shockwave',
    jobs: 900,
    policies: [...BASELINES, MAIN, NAIVE, 'tesserae-ftf', 'tessera'],
  },
  { cluster: 'tesserae-80', shape: 'gavel', jobs: 900, policies: [...BASELINES, MAIN, NAIVE, 'tessera'] },
  { cluster: 'tesserae-32', shape: 'shockwave', jobs: 120, policies: [...BASELINES, MAIN, NAIVE, 'tessera'] },
  {
    cluster: 'tesserae-80-v100',
    shape: 'shockwave',
    jobs: 900,
    policies: [...BASELINES, MAIN, NAIVE, 'tessera'],
  },
];
const QUICK_SETUPS: readonly SimSetup[] = [
  { cluster: 'tesserae-32', shape: 'shockwave', jobs: 120, policies: [...BASELINES, MAIN, NAIVE, 'tessera'] },
];

export interface ScaleSetup {
  readonly gpus: number;
  readonly jobs: number;
  readonly policies: readonly string[];
}
const FULL_SCALE: readonly ScaleSetup[] = [
  ...[512, 1024, 2048, 3000].map((jobs) => ({ gpus: 256, jobs, policies: [MAIN, 'gavel'] })),
  { gpus: 10_240, jobs: 10_000, policies: [MAIN] },
];
const QUICK_SCALE: readonly ScaleSetup[] = [
  { gpus: 256, jobs: 512, policies: [MAIN, 'gavel'] },
  { gpus: 256, jobs: 2048, policies: [MAIN] },
  { gpus: 10_240, jobs: 10_000, policies: [MAIN] },
];

/** Jobs per hour of Tesserae's traces (§6.1). */
const RATE_PER_HOUR = 80;
/** Tesserae's round (§6.1: six minutes). */
const ROUND_SECONDS = 360;
/** Durations of the generated traces are meant on Tesserae's A100s, also for the V100 variant (same jobs). */
const REFERENCE_GPU = 'A100-40GB';

export const tesseraeSuite: BenchSuite = {
  name: 'tesserae',
  description:
    "Tesserae (packing + migration relabelling) against Tiresias, Tiresias (Single) and Gavel on Tesserae's setups, plus round time at scale; the paper's figures beside ours",
  columns: [
    'setup',
    'policy',
    'avgJct',
    'makespan',
    'migrations',
    'ftfRatio',
    'gpus',
    'activeJobs',
    'seconds',
    'metric',
    'paper',
    'ours',
  ],
  *run({ quick, seed, log }) {
    const perf = loadDefaultPerfModel();
    const truth = groundTruthModel(perf, { seed });
    const results: BenchRow[] = [];
    for (const setup of quick ? QUICK_SETUPS : FULL_SETUPS) {
      const cluster = loadCluster(setup.cluster);
      const jobs = tesseraeWorkload({
        shape: setup.shape,
        jobs: setup.jobs,
        ratePerHour: RATE_PER_HOUR,
        seed,
        referenceGpuType: REFERENCE_GPU,
        perf,
      });
      for (const policyName of setup.policies) {
        log(`tesserae: ${setupName(setup)}, ${policyName}`);
        const row = simulationRow(setup, cluster, jobs, policyName, { perf, truth, seed });
        results.push(row);
        yield row;
      }
    }

    const scaleRows: BenchRow[] = [];
    for (const setup of quick ? QUICK_SCALE : FULL_SCALE) {
      for (const policyName of setup.policies) {
        log(`tesserae: round time, ${setup.gpus} GPUs × ${setup.jobs} jobs, ${policyName}`);
        const row = roundTime(setup, policyName, perf, seed, quick);
        scaleRows.push(row);
        yield row;
      }
    }
    yield* claims(results, scaleRows);
  },
};

const setupName = (setup: SimSetup): string => `${setup.cluster}/${setup.shape}-${setup.jobs}`;

/** One policy simulated on one setup, as a bench row (times in seconds, FTF ratios as means and worst). */
export const simulationRow = (
  setup: SimSetup,
  cluster: Cluster,
  jobs: readonly JobSpec[],
  policyName: string,
  models: { readonly perf: PerfModel; readonly truth: PerfModel; readonly seed: number },
): BenchRow => {
  const started = performance.now();
  const result = simulate({
    cluster,
    jobs,
    policy: getPolicy(policyName),
    perf: models.perf,
    truth: models.truth,
    config: { roundSeconds: ROUND_SECONDS, seed: models.seed },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const summary = summarize(result, `${setup.shape}:${setup.jobs}:${RATE_PER_HOUR}`, wallSeconds);
  const ftf = finishTimeFairness(result, jobs, cluster, models.truth);
  return {
    suite: 'tesserae',
    setup: setupName(setup),
    policy: policyName,
    cluster: setup.cluster,
    trace: summary.trace,
    jobs: summary.jobs,
    completed: summary.completed,
    avgJct: summary.avgJct,
    p95Jct: summary.p95Jct,
    makespan: summary.makespan,
    migrations: summary.migrations,
    restarts: summary.restarts,
    gpuUtilization: summary.gpuUtilization,
    ftfRatio: round3(ftf.mean),
    maxFtfRatio: round3(ftf.max),
    wallSeconds: round3(wallSeconds),
  };
};

/**
 * Wall time of one round at scale, split by stage: every job has arrived, the first round's plan runs (with
 * varied attained service, so the order reshuffles), and one more job arrives — the event that triggers the
 * measured round. Each repeat has a different arrival, so no repeat reuses Gavel's solved program.
 */
export const roundTime = (
  setup: ScaleSetup,
  policyName: string,
  perf: PerfModel,
  seed: number,
  quick: boolean,
): BenchRow => {
  const repeats = quick || setup.gpus >= 10_000 ? 1 : 3;
  const cluster = benchCluster(setup.gpus);
  const specs = tesseraeWorkload({
    shape: 'shockwave',
    jobs: setup.jobs + repeats,
    ratePerHour: (setup.jobs + repeats) * 4,
    seed,
    referenceGpuType: REFERENCE_GPU,
    perf,
  });
  const standing = specs.slice(0, setup.jobs);
  const arrivals = specs.slice(setup.jobs);
  const policy = getPolicy(policyName);
  const now = Math.max(...standing.map((s) => s.submitTime)) + 60;
  const { states, first } = standingJobs(standing, cluster, policy, perf, now);
  const samples: { total: number; stages: Record<string, number> }[] = [];
  let running = 0;
  for (const arriving of arrivals) {
    const jobs = [...states, newJobState({ ...arriving, submitTime: now + 60 })];
    const stages: Record<string, number> = {};
    const started = performance.now();
    const out = scheduleRound({
      now: now + 60,
      cluster,
      jobs,
      state: first.state,
      policy: timed(policy, stages),
      perf,
    });
    samples.push({ total: (performance.now() - started) / 1000, stages });
    running = out.stats.runningJobs;
  }
  samples.sort((a, b) => a.total - b.total);
  const median = samples[Math.floor(samples.length / 2)]!;
  return {
    suite: 'tesserae',
    setup: `${setup.gpus}gpus-${setup.jobs}jobs`,
    policy: policyName,
    gpus: setup.gpus,
    activeJobs: setup.jobs + 1,
    runningJobs: running,
    seconds: round3(median.total),
    orderAllocateSeconds: round3((median.stages.order ?? 0) + (median.stages.allocate ?? 0)),
    placeSeconds: round3(median.stages.place ?? 0),
    packSeconds: round3(median.stages.pack ?? 0),
    migrateSeconds: round3(median.stages.migrate ?? 0),
  };
};

/** The policy with each stage's wall time added to `into` (the shell measures; the core stays clock-free). */
const timed = (policy: Policy, into: Record<string, number>): Policy => {
  const clock = <T>(stage: string, run: () => T): T => {
    const started = performance.now();
    const out = run();
    into[stage] = (into[stage] ?? 0) + (performance.now() - started) / 1000;
    return out;
  };
  return {
    ...policy,
    order: { ...policy.order, order: (jobs, ctx) => clock('order', () => policy.order.order(jobs, ctx)) },
    allocate: {
      ...policy.allocate,
      allocate: (ordered, ctx) => clock('allocate', () => policy.allocate.allocate(ordered, ctx)),
    },
    place: {
      ...policy.place,
      place: (ordered, demands, free, ctx) =>
        clock('place', () => policy.place.place(ordered, demands, free, ctx)),
    },
    ...(policy.pack
      ? {
          pack: {
            ...policy.pack,
            pack: (ordered, plan, free, ctx) =>
              clock('pack', () => policy.pack!.pack(ordered, plan, free, ctx)),
          },
        }
      : {}),
    ...(policy.migrate
      ? {
          migrate: {
            ...policy.migrate,
            relabel: (ordered, plan, free, ctx) =>
              clock('migrate', () => policy.migrate!.relabel(ordered, plan, free, ctx)),
          },
        }
      : {}),
  };
};

/** The paper's claims beside ours, each measured in this run. */
export function* claims(results: readonly BenchRow[], scale: readonly BenchRow[]): Generator<BenchRow> {
  const bySetup = new Map<string, Map<string, BenchRow>>();
  for (const r of results) {
    const m = bySetup.get(r.setup) ?? new Map<string, BenchRow>();
    m.set(r.policy, r);
    bySetup.set(r.setup, m);
  }
  const best = (metric: 'avgJct' | 'makespan') => {
    let top: { ratio: number; where: string } | undefined;
    for (const [setup, rows] of bySetup) {
      const ours = rows.get(MAIN)?.[metric];
      if (typeof ours !== 'number' || ours <= 0) continue;
      for (const baseline of BASELINES) {
        const theirs = rows.get(baseline)?.[metric];
        if (typeof theirs !== 'number') continue;
        const ratio = theirs / ours;
        if (!top || ratio > top.ratio) top = { ratio, where: `vs ${baseline} on ${setup}` };
      }
    }
    return top;
  };
  const claim = (metric: string, paper: number, ours: number | undefined, detail: string): BenchRow => ({
    suite: 'tesserae',
    setup: 'paper-vs-ours',
    policy: MAIN,
    metric,
    paper,
    ours: ours === undefined ? Number.NaN : round3(ours),
    detail,
  });
  const jct = best('avgJct');
  yield claim(
    'avgJct speed-up, up to',
    TESSERAE_PAPER.avgJctSpeedup,
    jct?.ratio,
    jct?.where ?? 'no baseline run',
  );
  const span = best('makespan');
  yield claim(
    'makespan speed-up, up to',
    TESSERAE_PAPER.makespanSpeedup,
    span?.ratio,
    span?.where ?? 'no baseline run',
  );
  for (const [setup, rows] of bySetup) {
    const relabel = rows.get(MAIN)?.migrations;
    const naive = rows.get(NAIVE)?.migrations;
    if (typeof relabel !== 'number' || typeof naive !== 'number' || naive <= 0) continue;
    yield claim(
      "fewer migrations than Gavel's rule",
      TESSERAE_PAPER.fewerMigrationsThanGavelRule,
      1 - relabel / naive,
      `${MAIN} ${relabel} vs ${NAIVE} ${naive} on ${setup}`,
    );
  }
  const roundAt = (jobs: number) =>
    scale.find((r) => r.policy === MAIN && r.gpus === 256 && r.activeJobs === jobs + 1);
  const at2048 = roundAt(2048);
  if (at2048)
    yield claim(
      'round seconds, 256 GPUs × 2,048 jobs',
      TESSERAE_PAPER.secondsAt256Gpus2048Jobs,
      at2048.seconds as number,
      'placement + packing + migration, one round',
    );
  const at3000 = roundAt(3000);
  if (at3000)
    yield claim(
      'round seconds, 256 GPUs × 3,000 jobs',
      TESSERAE_PAPER.secondsAt256Gpus3000Jobs,
      at3000.seconds as number,
      'placement + packing + migration, one round',
    );
}

const round3 = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);
