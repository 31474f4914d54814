import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { fifoOrder } from '../../../../../lib/core/plugins/baselines/fifo.ts';
import { keepThenFit } from '../../../../../lib/core/plugins/baselines/keep-then-fit.ts';
import { requestedDemands } from '../../../../../lib/core/plugins/dally/demands.ts';
import { networkSensitiveOrder } from '../../../../../lib/core/plugins/dally/order.ts';
import {
  idealIterationSeconds,
  networkPriority,
  workAndRunTime,
} from '../../../../../lib/core/plugins/dally/priority.ts';
import { cluster, linearPerf, on, queued, running, spec } from '../../../../support/fixtures.ts';

const C = cluster([{ gpuType: 'A100-40GB', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
const policy: Policy = {
  name: 'p',
  description: '',
  order: fifoOrder,
  allocate: requestedDemands,
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
};
const ctx = (now = 0) =>
  roundContext({ now, cluster: C, jobs: [], state: initialSchedulerState(), policy, perf: linearPerf() });

describe('P = W/R', () => {
  // 1,000 iterations, ideal 0.125 s each (8 GPUs × 1 it/s/GPU in linearPerf): ideal running time 125 s.
  const job = { spec: spec({ iterations: 1000, gpus: 8 }), progress: 100, runningSeconds: 50 };

  test('W = i/I, R = t_run/(t_compute·I)', () => {
    assert.deepEqual(workAndRunTime(job, 0.125), { w: 0.1, r: 0.4 });
  });

  test('ratio = W/R (ideal ÷ observed speed) and difference = W − R', () => {
    assert.equal(networkPriority(job, 0.125, 'ratio'), 0.25);
    assert.ok(Math.abs(networkPriority(job, 0.125, 'difference') - -0.3) < 1e-12);
  });

  test('a job that never ran is neutral: 1 (ratio), 0 (difference)', () => {
    const fresh = { spec: spec({ iterations: 1000 }), progress: 0, runningSeconds: 0 };
    assert.equal(networkPriority(fresh, 0.125, 'ratio'), 1);
    assert.equal(networkPriority(fresh, 0.125, 'difference'), 0);
  });

  test('a model that cannot run anywhere (t_compute 0) is neutral, never NaN', () => {
    assert.equal(networkPriority(job, 0, 'ratio'), 1);
    assert.equal(networkPriority(job, 0, 'difference'), 0);
  });

  test('t_compute is the estimate on the GPUs the job holds or asks for, at the best shape', () => {
    assert.equal(idealIterationSeconds(queued({ gpus: 8 }), ctx()), 1 / 8);
    assert.equal(idealIterationSeconds(queued({ gpus: 16 }), ctx()), 1 / (16 * 0.8));
    const spread = running({ gpus: 2 }, on('A100-40GB', ['g0-h0', [0]], ['g0-h2', [0]]));
    assert.equal(idealIterationSeconds(spread, ctx()), 1 / 2);
  });
});

describe('networkSensitiveOrder', () => {
  test('lowest P first; fresh jobs (P = 1) by arrival; running and waiting jobs together', () => {
    // Ideal: 8 GPUs at 8 it/s → 0.125 s per iteration; 1,000 iterations → 125 s of ideal work.
    const slowed = running(
      { id: 'slowed', gpus: 8, iterations: 1000, submitTime: 30 },
      on('A100-40GB', ['g0-h0', [0, 1, 2, 3]], ['g0-h2', [0, 1, 2, 3]]),
      { progress: 100, runningSeconds: 100 }, // W 0.1, R 0.8 → P 0.125
    );
    const fine = running(
      { id: 'fine', gpus: 8, iterations: 1000, submitTime: 0 },
      on('A100-40GB', ['g0-h1', [0, 1, 2, 3, 4, 5, 6, 7]]),
      { progress: 400, runningSeconds: 50 }, // W 0.4, R 0.4 → P 1.0
    );
    const preempted = {
      ...queued({ id: 'preempted', gpus: 8, iterations: 1000, submitTime: 40 }),
      status: 'suspended' as const,
      progress: 200,
      runningSeconds: 50, // W 0.2, R 0.4 → P 0.5
    };
    const early = queued({ id: 'early', gpus: 8, submitTime: 10 });
    const late = queued({ id: 'late', gpus: 8, submitTime: 20 });
    const jobs = [late, fine, early, preempted, slowed];
    const ids = (formula: 'ratio' | 'difference') =>
      networkSensitiveOrder(formula)
        .order(jobs, ctx())
        .map((j) => j.spec.id);
    // fine (P 1.0, arrival 0) ties the fresh jobs and arrived first.
    assert.deepEqual(ids('ratio'), ['slowed', 'preempted', 'fine', 'early', 'late']);
    // W − R: slowed −0.7, preempted −0.2, fine 0, fresh 0.
    assert.deepEqual(ids('difference'), ['slowed', 'preempted', 'fine', 'early', 'late']);
  });

  test('the two formulas can disagree: ratio weighs the slowdown, difference the time lost', () => {
    const a = { ...queued({ id: 'a', gpus: 8, iterations: 1000 }), progress: 10, runningSeconds: 5 }; // W .01 R .04
    const b = { ...queued({ id: 'b', gpus: 8, iterations: 1000 }), progress: 400, runningSeconds: 100 }; // W .4 R .8
    const ids = (formula: 'ratio' | 'difference') =>
      networkSensitiveOrder(formula)
        .order([a, b], ctx())
        .map((j) => j.spec.id);
    assert.deepEqual(ids('ratio'), ['a', 'b']); // 0.25 < 0.5
    assert.deepEqual(ids('difference'), ['b', 'a']); // −0.4 < −0.03
  });
});
