import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { lasOrder, lasQueue } from '../../../../../lib/core/plugins/baselines/las.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

const options = { thresholds: [100, 1000], starveFactor: 2 };

describe('Tiresias discretised 2D-LAS', () => {
  test('demotes a job as its attained service (GPU-seconds) crosses each threshold', () => {
    const job = running({}, on('A100', ['g0-h0', [0]]));
    assert.equal(lasQueue({ ...job, attainedService: 99 }, 0, options), 0);
    assert.equal(lasQueue({ ...job, attainedService: 100 }, 0, options), 1);
    assert.equal(lasQueue({ ...job, attainedService: 5000 }, 0, options), 2);
  });

  test('promotes a starving job back to the top queue after waiting starveFactor × its running time', () => {
    const job = {
      ...queued({}),
      status: 'suspended' as const,
      attainedService: 5000,
      runningSeconds: 100,
      waitingSince: 0,
    };
    assert.equal(lasQueue(job, 199, options), 2);
    assert.equal(lasQueue(job, 200, options), 0);
  });

  test('never promotes a job that has not run (it is already in the top queue)', () => {
    assert.equal(lasQueue(queued({}), 1e9, options), 0);
  });

  test('orders by queue, then FIFO inside a queue; a demoted running job falls behind new arrivals', () => {
    const old = running({ id: 'old', submitTime: 0 }, on('A100', ['g0-h0', [0]]), { attainedService: 500 });
    const a = queued({ id: 'a', submitTime: 10 });
    const b = queued({ id: 'b', submitTime: 5 });
    const policy = { order: lasOrder(options) } as Policy;
    const ctx = roundContext({
      now: 20,
      cluster: cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]),
      jobs: [],
      state: initialSchedulerState(),
      policy,
      perf: linearPerf(),
    });
    assert.deepEqual(
      lasOrder(options)
        .order([old, a, b], ctx)
        .map((j) => j.spec.id),
      ['b', 'a', 'old'],
    );
  });
});
