import { loadWorkload, runPolicies } from '../lib/sim/run.ts';
import type { BenchSuite } from './types.ts';

/** The Philly list starts sparse (13 jobs in week 2); from day 49 a week holds about 6,900 jobs. */
export const PHILLY_BUSY_WEEK_START_DAY = 49;

export const SIM_BENCH_POLICIES = ['fifo', 'yarn-cs', 'tiresias', 'gandiva', 'srtf', 'tessera'];

/** Simulated seconds per wall second for a Philly slice on crius-1280 (one week; one day with --quick). */
export const simSuite: BenchSuite = {
  name: 'sim',
  description: 'simulator speed: simulated seconds per wall second on a Philly slice, crius-1280',
  columns: ['setup', 'policy', 'jobs', 'completed', 'simulatedSeconds', 'wallSeconds', 'speedup', 'avgJct'],
  *run({ quick, seed, log }) {
    const days = quick ? 1 : 7;
    const workload = loadWorkload({
      trace: 'philly',
      cluster: 'crius-1280',
      skipDays: PHILLY_BUSY_WEEK_START_DAY,
      days,
      seed,
    });
    for (const policy of SIM_BENCH_POLICIES) {
      log(`sim: philly ${days}d on crius-1280, ${policy}`);
      const [run] = runPolicies(workload, [policy], { seed });
      const s = run!.summary;
      yield {
        suite: 'sim',
        setup: `philly-d${PHILLY_BUSY_WEEK_START_DAY}+${days}d-crius-1280`,
        policy,
        jobs: s.jobs,
        completed: s.completed,
        simulatedSeconds: s.simulatedSeconds,
        wallSeconds: s.wallSeconds,
        speedup: Math.round(s.simulatedSeconds / Math.max(1e-6, s.wallSeconds)),
        avgJct: s.avgJct,
        rounds: s.rounds,
      };
    }
  },
};
