import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { estimatedFinishTimeFairness, ftfOrder } from '../../../../../lib/core/plugins/tesserae/ftf.ts';
import { cluster, linearPerf, queued } from '../../../../support/fixtures.ts';

describe('finish-time fairness order (Tesserae-FTF)', () => {
  const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 4 }]);
  const ctx = (now: number, jobs: ReturnType<typeof queued>[]) =>
    roundContext({
      now,
      cluster: c,
      jobs,
      state: initialSchedulerState(),
      policy: {} as Policy,
      perf: linearPerf(),
    });

  test('ρ = (waited + remaining) / (isolated time, stretched beyond the fair share)', () => {
    // 1 GPU at 1 it/s, 100 iterations: 100 s alone. Waited 100 s with 4 active jobs on 4 GPUs: share 1 GPU.
    const job = queued({ id: 'x', gpus: 1, iterations: 100, submitTime: 0 });
    assert.equal(estimatedFinishTimeFairness(job, ctx(100, [job]), 4, 4), 2);
    // A 4-GPU job among 4 active jobs gets a fair share of 1 GPU: its ideal time is 4× its isolated time.
    const wide = queued({ id: 'w', gpus: 4, iterations: 400, submitTime: 0 });
    assert.equal(estimatedFinishTimeFairness(wide, ctx(100, [wide]), 4, 4), (100 + 100) / 400);
  });

  test('orders the job furthest behind its fair share first', () => {
    const early = queued({ id: 'early', iterations: 100, submitTime: 0 });
    const late = queued({ id: 'late', iterations: 100, submitTime: 900 });
    const long = queued({ id: 'long', iterations: 10_000, submitTime: 0 });
    const jobs = [late, long, early];
    assert.deepEqual(
      ftfOrder.order(jobs, ctx(1_000, jobs)).map((j) => j.spec.id),
      ['early', 'late', 'long'],
    );
  });
});
