import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, queued, spec } from '../../../../support/fixtures.ts';

// linearPerf: 1 iteration/s per GPU (× type speed), slower when spread: marginal gains are easy to reason about.
const two = cluster([
  { gpuType: 'A', hosts: 2, gpusPerHost: 4 },
  { gpuType: 'B', hosts: 1, gpusPerHost: 4 },
]);
const perf = linearPerf({ A: 2, B: 1 });
const round = (policy: string, jobs: JobState[], now = 0) =>
  scheduleRound({ now, cluster: two, jobs, state: initialSchedulerState(), policy: getPolicy(policy), perf });

describe('elasticflow', () => {
  test('a deadline job gets its minimum satisfactory share; jobs stay on one type; leftovers scale by marginal gain', () => {
    // 400 iterations at 2 it/s per A GPU: a 100 s deadline needs 2 GPUs (4 it/s → 100 s), not 1.
    const tight = queued(
      spec({ id: 'tight', gpus: 1, iterations: 400, deadline: 101, preferredGpuType: 'A' }),
    );
    const free = queued(spec({ id: 'free', gpus: 1, iterations: 400, submitTime: 1, preferredGpuType: 'B' }));
    const out = round('elasticflow', [tight, free]);
    assert.equal(out.plan.get('tight')?.gpuType, 'A');
    assert.ok(allocationGpuCount(out.plan.get('tight')!) >= 2);
    assert.equal(out.plan.get('free')?.gpuType, 'B');
    // Both are scaled up to 2N with the idle GPUs (linear gains).
    assert.equal(allocationGpuCount(out.plan.get('tight')!), 2);
    assert.equal(allocationGpuCount(out.plan.get('free')!), 2);
  });

  test('admission control: a deadline no share can meet drops the job; -LS loosens it instead', () => {
    const hopeless = queued(
      spec({ id: 'late', gpus: 1, iterations: 10_000, deadline: 10, preferredGpuType: 'A' }),
    );
    const strict = round('elasticflow', [hopeless]);
    assert.deepEqual(strict.actions, [{ kind: 'stop', jobId: 'late', reason: 'unschedulable' }]);
    const loose = round('elasticflow-ls', [hopeless]);
    assert.ok(loose.plan.has('late'));
  });

  test('admitted (running) deadline jobs keep their guarantee before newcomers', () => {
    const a = queued(spec({ id: 'a', gpus: 4, iterations: 8_000, deadline: 1_000, preferredGpuType: 'A' }));
    const out1 = round('elasticflow', [a]);
    const held: JobState = { ...a, status: 'running', allocation: out1.plan.get('a')!, runningSince: 0 };
    const b = queued(
      spec({ id: 'b', gpus: 8, iterations: 100, deadline: 50, submitTime: 5, preferredGpuType: 'A' }),
    );
    const out2 = round('elasticflow', [held, b], 10);
    assert.ok(out2.plan.has('a'));
    assert.ok(allocationGpuCount(out2.plan.get('a')!) >= 4);
  });
});
