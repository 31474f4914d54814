import { getPolicy } from '../lib/core/policies.ts';
import { loadWorkload } from '../lib/sim/run.ts';
import { simulate } from '../lib/sim/simulator.ts';
import { WaitEstimateRecorder, waitEstimateQuality } from '../lib/sim/wait-estimates.ts';
import { PHILLY_BUSY_WEEK_START_DAY } from './sim.ts';
import type { BenchSuite } from './types.ts';

export const WAIT_ESTIMATE_POLICIES = ['tessera', 'srtf'];
const CLUSTER = 'crius-testbed-64';

/**
 * How close each round's estimated start of a waiting job comes to its actual first start, in the simulator (whose
 * executor runs jobs at a hidden "true" speed that differs from the scheduler's perf model). Philly from day 49 on the
 * 64-GPU Crius testbed, where jobs queue (on crius-1280 no job of that day waits at all); one day, half with --quick.
 */
export const waitEstimateSuite: BenchSuite = {
  name: 'wait-estimate',
  description:
    "error of the rounds' estimated start vs actual start of waiting jobs (Philly day 49, crius-1280)",
  columns: [
    'setup',
    'policy',
    'waits',
    'samples',
    'medianWait',
    'medianAbsError',
    'medianFirstAbsError',
    'p90AbsError',
    'medianBias',
    'withinTolerance',
  ],
  *run({ quick, seed, log }) {
    const days = quick ? 0.5 : 1;
    const workload = loadWorkload({
      trace: 'philly',
      cluster: CLUSTER,
      skipDays: PHILLY_BUSY_WEEK_START_DAY,
      days,
      seed,
    });
    for (const name of WAIT_ESTIMATE_POLICIES) {
      log(`wait-estimate: philly day ${PHILLY_BUSY_WEEK_START_DAY} +${days}d on ${CLUSTER}, ${name}`);
      const recorder = new WaitEstimateRecorder();
      const started = performance.now();
      simulate({
        cluster: workload.cluster,
        jobs: workload.jobs,
        policy: getPolicy(name),
        perf: workload.perf,
        truth: workload.truth,
        config: { seed },
        onRound: recorder.onRound,
      });
      const q = waitEstimateQuality(recorder.samples);
      yield {
        suite: 'wait-estimate',
        setup: `philly-d${PHILLY_BUSY_WEEK_START_DAY}+${days}d-${CLUSTER}`,
        policy: name,
        waits: q.waits,
        samples: q.samples,
        medianWait: Math.round(q.medianWait),
        medianAbsError: Math.round(q.medianAbsError),
        medianFirstAbsError: Math.round(q.medianFirstAbsError),
        p90AbsError: Math.round(q.p90AbsError),
        medianBias: Math.round(q.medianBias),
        withinTolerance: Math.round(q.withinTolerance * 1000) / 1000,
        seconds: Math.round((performance.now() - started) / 100) / 10,
      };
    }
  },
};
