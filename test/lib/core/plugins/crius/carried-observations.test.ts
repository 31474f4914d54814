import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { benchCluster, steadyState } from '../../../../../bench/round.ts';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { SchedulerState } from '../../../../../lib/core/model/state.ts';
import { jobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';

// Crius keeps each running job's last observation on its allocation's record (`observationOf`) and reuses it while the
// job reports the same throughput. Over random sequences of rounds — jobs reporting the same throughput again, another
// one, or none — the calibration learned with the memo carried from round to round must be, round after round, the one
// learned with a fresh memo every round (nothing carried). A record that kept its observation when the throughput
// changed would learn the old ratio again.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);

describe('crius observations carried across rounds', () => {
  for (const name of ['crius', 'tessera']) {
    const { policy, states, state, now } = steadyState(cluster, 240, name, perf, 7);
    const cold = roundContext({ now, cluster, jobs: states, state, policy, perf });
    const estimate = states.map(
      (j) => jobCells(j, cold, CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS).current?.rate ?? 1,
    );
    // Per round: a factor per job (by index, cycled); 0 means the job reports nothing this round.
    const round = fc.array(fc.constantFrom(0, 0.5, 0.9, 1, 1.2, 2), { minLength: 1, maxLength: 5 });
    test(`${name}: a memo carried through rounds learns what a fresh memo learns each round`, () => {
      let repeated = 0;
      fc.assert(
        fc.property(fc.array(round, { minLength: 2, maxLength: 6 }), (rounds) => {
          const carriedMemo = new RoundMemo();
          let carried: SchedulerState = state;
          let fresh: SchedulerState = state;
          let previous: JobState[] | undefined;
          for (const factors of rounds) {
            const jobs = states.map((j, i) => {
              const f = factors[i % factors.length]!;
              return j.allocation && f > 0 ? { ...j, measuredThroughput: estimate[i]! * f } : j;
            });
            if (
              previous?.some(
                (j, i) =>
                  j.measuredThroughput !== undefined && j.measuredThroughput === jobs[i]!.measuredThroughput,
              )
            )
              repeated++;
            previous = jobs;
            const learn = (from: SchedulerState, memo: RoundMemo): SchedulerState => {
              const ctx = roundContext({ now, cluster, jobs, state: from, policy, perf, memo });
              const ordered = policy.order.order(jobs, ctx);
              policy.allocate.allocate(ordered, ctx);
              return policy.allocate.nextState!(ordered, new Map(), ctx);
            };
            carried = learn(carried, carriedMemo);
            fresh = learn(fresh, new RoundMemo());
            assert.deepEqual(carried.cellCalibration, fresh.cellCalibration);
          }
        }),
        { numRuns: 10, seed: 7 },
      );
      assert.ok(repeated > 5, `${repeated} rounds repeat a job's throughput (the reuse is exercised)`);
    });
  }
});
