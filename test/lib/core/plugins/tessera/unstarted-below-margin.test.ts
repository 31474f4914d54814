import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { PerfModel, ThroughputQuery } from '../../../../../lib/core/model/perf.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, queued } from '../../../../support/fixtures.ts';

// One 4-GPU machine; 2 GPUs run a job 8 % faster than 1 (rate ∝ gpus^0.111): below Crius's 10 % scale-up margin.
const c = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 4 }]);
const sublinear: PerfModel = {
  name: 'sublinear-test',
  throughput: (q: ThroughputQuery) => {
    const rate = q.gpus ** Math.log2(1.08);
    return { iterationsPerSecond: rate, computeSeconds: 1 / rate, commSeconds: 0, source: 'analytic' };
  },
  colocation: () => ({ normalized: [0.5, 0.5], source: 'estimated' }),
};

const admitted = (policy: string, iterations: number): number => {
  const job = queued({ id: 'j', gpus: 1, iterations, packable: false });
  const out = scheduleRound({
    now: 0,
    cluster: c,
    jobs: [job],
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf: sublinear,
  });
  return allocationGpuCount(out.plan.get('j')!);
};

describe('a job admitted this round starts on the Cell the estimate rates faster, also below the margin', () => {
  test('a long job starts on 2 GPUs rated 8 % faster (Crius keeps its 10 % margin and starts it on 1)', () => {
    // 100,000 s at 1 it/s: staying on 2 GPUs saves 1 − e^(−ln 1.08 + σ²/2) ≈ 7 % of it, far above a restart.
    assert.equal(admitted('tessera', 100_000), 2);
    assert.equal(admitted('crius', 100_000), 1);
  });

  test('a short one stays on 1: the expected saving (≈ 14 s of 200 s) does not pay the restart when taken back', () => {
    assert.equal(admitted('tessera', 200), 1);
  });
});
