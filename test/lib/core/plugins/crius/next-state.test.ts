import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { benchCluster, steadyState } from '../../../../../bench/round.ts';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { jobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';

// Crius's nextState reads what allocate found in the same round (each running job's allocation record, the ranks as
// the active jobs) when given the very list allocate was given. The calibration it learns must be the one it learns
// looking everything up again: a copy of the list, a fresh memo and a fresh scratch store.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);

describe('crius nextState after allocate', () => {
  for (const name of ['crius', 'tessera']) {
    const { policy, states, state, now } = steadyState(cluster, 300, name, perf, 5);
    // Each running job's held Cell estimated without calibration: reports are a factor of it.
    const cold = roundContext({ now, cluster, jobs: states, state, policy, perf });
    const estimate = states.map(
      (j) => jobCells(j, cold, CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS).current?.rate ?? 1,
    );
    test(`${name}: the calibration learned from allocate's records equals the one looked up afresh`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.double({ min: 0.3, max: 3, noNaN: true }), { minLength: 1, maxLength: 17 }),
          fc.nat(7),
          (rates, stride) => {
            // Running jobs report throughput (every stride-th reports none); over two rounds, so that own ratios exist.
            const observed = (round: number): JobState[] =>
              states.map((j, i) =>
                j.allocation && i % (stride + 2) !== 0
                  ? { ...j, measuredThroughput: estimate[i]! * rates[(i + round) % rates.length]! }
                  : j,
              );
            const memo = new RoundMemo();
            let carried = state;
            for (const round of [0, 1]) {
              const jobs = observed(round);
              const ctx = roundContext({ now, cluster, jobs, state: carried, policy, perf, memo });
              const ordered = policy.order.order(jobs, ctx);
              policy.allocate.allocate(ordered, ctx);
              const plan = new Map(); // Crius learns from the jobs' reports, not from the plan
              const viaAllocate = policy.allocate.nextState!(ordered, plan, ctx);
              const fresh = roundContext({
                now,
                cluster,
                jobs,
                state: carried,
                policy,
                perf,
                memo: new RoundMemo(),
              });
              const afresh = policy.allocate.nextState!([...ordered], plan, fresh);
              assert.deepEqual(viaAllocate.cellCalibration, afresh.cellCalibration);
              carried = viaAllocate;
            }
            assert.ok(
              Object.keys(carried.cellCalibration?.cells ?? {}).length > 0,
              'jobs have ratios of their own',
            );
          },
        ),
        { numRuns: 12, seed: 42 },
      );
    });
  }
});
