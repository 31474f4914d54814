import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { tessera } from '../../../../../lib/core/plugins/tessera/policy.ts';
import { unstartedScaleUps } from '../../../../../lib/core/plugins/tessera/unstarted-scale-ups.ts';
import { cluster, linearPerf, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

// Crius's scale-up pass moves at most `depth` (3) jobs a round; tessera does not count jobs admitted this round (a
// larger Cell costs them no restart, and short jobs end before a later round would give it to them).
describe('scale-ups of jobs admitted this round are not counted against the depth', () => {
  test('the predicate names jobs that hold no GPUs, not running ones', () => {
    const c = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 8 }]);
    const [h0] = c.hosts.map((h) => h.id) as [string];
    const jobs = [queued({ id: 'new' }), running({ id: 'old', gpus: 1 }, on('V100-16GB', [h0, [0]]))];
    const beyond = unstartedScaleUps(jobs, stageContext(c, jobs));
    assert.equal(beyond('new'), true);
    assert.equal(beyond('old'), false);
    assert.equal(beyond('unknown'), false);
  });

  test('through tessera: six 1-GPU jobs at t = 0 on an idle 16-GPU machine all start on 2 GPUs, not three of them', () => {
    const c = cluster([{ gpuType: 'V100-16GB', hosts: 1, gpusPerHost: 16 }]);
    const jobs = Array.from({ length: 6 }, (_, i) =>
      queued({ id: `j${i}`, gpus: 1, iterations: 100_000 * (i + 1), submitTime: 0, packable: false }),
    );
    const round = scheduleRound({
      now: 0,
      cluster: c,
      jobs,
      state: initialSchedulerState(),
      policy: tessera,
      perf: linearPerf(),
    });
    const counts = jobs.map((j) => allocationGpuCount(round.plan.get(j.spec.id)!));
    assert.deepEqual(counts, [2, 2, 2, 2, 2, 2]);
  });
});
