import type { PolicyRun, Workload } from '../../../../lib/sim/run.ts';
import type { JobOutcome, JobRecord, SimResult, TimePoint } from '../../../../lib/sim/simulator.ts';
import { summarize } from '../../../../lib/sim/summary.ts';

/** Hand-built simulator results for the report tests: deterministic, shaped like real runs, any size. */

/** Small linear congruential generator: the fixtures only need repeatable spread, not statistical quality. */
const random = (seed: number) => {
  let state = (seed * 2_654_435_761 + 1) >>> 0;
  return (): number => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
};

export interface RunShape {
  readonly policy: string;
  readonly jobs: number;
  readonly timelinePoints: number;
  readonly spanSeconds: number;
  readonly totalGpus?: number;
  readonly seed?: number;
  /** Fraction of jobs that complete (default 0.9); the rest alternate between unfinished and unschedulable. */
  readonly completedShare?: number;
  readonly cluster?: string;
  readonly trace?: string;
}

export const syntheticRun = (shape: RunShape): PolicyRun => {
  const next = random(shape.seed ?? 1);
  const totalGpus = shape.totalGpus ?? 64;
  const start = 1_000;
  const completedShare = shape.completedShare ?? 0.9;
  const jobs: JobRecord[] = [];
  let failures = 0;
  for (let i = 0; i < shape.jobs; i++) {
    const submitTime = start + next() * shape.spanSeconds * 0.7;
    // Log-uniform between a minute and three days, like Philly's spread of durations.
    const running = 60 * Math.exp(next() * Math.log(4_320));
    const queueing = next() < 0.5 ? 0 : next() * running;
    const gpus = 2 ** Math.floor(next() * 4);
    // Golden-ratio spacing spreads the exact share of completions evenly over the jobs, even for a handful.
    const completed = ((i + 1) * 0.618_033_988_75) % 1 < completedShare;
    const outcome: JobOutcome = completed
      ? 'completed'
      : failures++ % 2 === 0
        ? 'unfinished'
        : 'unschedulable';
    const jct = running + queueing;
    jobs.push({
      id: `job-${i}`,
      model: ['resnet50', 'bert-large', 'gpt2'][i % 3]!,
      gpus,
      submitTime,
      ...(outcome !== 'unschedulable' ? { firstStart: submitTime + queueing } : {}),
      ...(completed ? { finishTime: submitTime + jct, jct } : {}),
      outcome,
      ...(outcome === 'unschedulable' ? { reason: 'needs more GPUs than any network has' } : {}),
      queueing,
      runningSeconds: completed ? running : 0,
      gpuSeconds: completed ? running * gpus : 0,
      commSeconds: completed ? running * 0.05 : 0,
      cost: completed ? running * gpus * 0.001 : 0,
      unpricedGpuSeconds: 0,
      restarts: Math.floor(next() * 3),
      migrations: Math.floor(next() * 2),
      jctLowerBound: running * 0.8,
    });
  }
  const timeline: TimePoint[] = [];
  let busy = totalGpus / 2;
  let waiting = 5;
  for (let i = 0; i < shape.timelinePoints; i++) {
    busy = Math.min(totalGpus, Math.max(0, busy + Math.round((next() - 0.5) * 8)));
    waiting = Math.max(0, waiting + Math.round((next() - 0.5) * 4));
    timeline.push({
      t: start + (i / Math.max(1, shape.timelinePoints)) * shape.spanSeconds,
      busyGpus: busy,
      runningJobs: Math.ceil(busy / 2),
      waitingJobs: waiting,
    });
  }
  const result: SimResult = {
    policy: shape.policy,
    cluster: shape.cluster ?? 'test-64',
    totalGpus,
    jobs,
    timeline,
    makespan: shape.spanSeconds,
    busyGpuSeconds:
      timeline.reduce((s, p) => s + p.busyGpus, 0) * (shape.spanSeconds / Math.max(1, shape.timelinePoints)),
    rounds: shape.timelinePoints,
    startTime: start,
    endTime: start + shape.spanSeconds,
  };
  return { result, summary: summarize(result, shape.trace ?? 'synthetic', 1.25) };
};

/** The parts of a `Workload` the report reads; the perf models are never touched by it. */
export const syntheticWorkload = (trace = 'synthetic', clusterName = 'test-64'): Workload =>
  ({
    traceName: trace,
    cluster: {
      name: clusterName,
      hosts: Array.from({ length: 8 }, (_, i) => ({
        id: `h${i}`,
        gpuType: i < 6 ? 'V100' : 'K80',
        gpuCount: 8,
        rack: `r${i % 2}`,
        network: 'n0',
        zone: 'z0',
      })),
    },
    jobs: [],
    traceIssues: [],
    workloadIssues: [],
  }) as unknown as Workload;
