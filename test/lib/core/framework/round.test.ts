import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../lib/core/framework/stages.ts';
import type { PerfModel } from '../../../../lib/core/model/perf.ts';
import { initialSchedulerState } from '../../../../lib/core/model/state.ts';
import { getPolicy } from '../../../../lib/core/policies.ts';
import { cluster, linearPerf, queued, running } from '../../../support/fixtures.ts';

/** linearPerf, except that `huge` makes no progress anywhere and `big` none on T4 (out of memory). */
const perf: PerfModel = {
  ...linearPerf({ V100: 1, T4: 1 }),
  throughput: (q) => {
    const base = linearPerf({ V100: 1, T4: 1 }).throughput(q);
    const zero = q.model === 'huge' || (q.model === 'big' && q.gpuType === 'T4');
    return zero ? { ...base, iterationsPerSecond: 0 } : base;
  },
};
const c = cluster([
  { gpuType: 'T4', hosts: 2, gpusPerHost: 4 },
  { gpuType: 'V100', hosts: 1, gpusPerHost: 2 },
]);
const round = (policy: Policy, jobs: Parameters<typeof scheduleRound>[0]['jobs']) =>
  scheduleRound({ now: 0, cluster: c, jobs, state: initialSchedulerState(), policy, perf });

describe('the round ends jobs that can never progress', () => {
  test('a waiting job with zero throughput at its request on every allowed type: unschedulable, with why', () => {
    const out = round(getPolicy('fifo'), [queued({ id: 'h', model: 'huge', gpus: 2 }), queued({ id: 'ok' })]);
    assert.deepEqual(
      out.stats.unschedulable.map((u) => u.jobId),
      ['h'],
    );
    assert.match(out.stats.unschedulable[0]!.reason, /huge .* no progress on 2 GPU\(s\) of any allowed type/);
    assert.ok(!out.plan.has('h') && out.plan.has('ok'));
    assert.ok(out.actions.some((a) => a.kind === 'stop' && a.jobId === 'h' && a.reason === 'unschedulable'));
  });

  test('a job holding GPUs on which it makes no progress is stopped as unschedulable', () => {
    const held = { gpuType: 'T4', slices: [{ hostId: c.hosts[0]!.id, gpus: [0, 1] }] };
    const out = round(getPolicy('fifo'), [running({ id: 'h', model: 'huge', gpus: 2 }, held)]);
    assert.deepEqual(
      out.actions.map((a) => (a.kind === 'stop' ? [a.kind, a.jobId, a.reason] : [a.kind])),
      [['stop', 'h', 'unschedulable']],
    );
  });

  test('gang allocation never picks a type the job makes no progress on, even the one with most free GPUs', () => {
    for (const name of ['fifo', 'tiresias', 'srtf']) {
      const out = round(getPolicy(name), [queued({ id: 'b', model: 'big', gpus: 2 })]);
      assert.equal(out.plan.get('b')?.gpuType, 'V100', name);
    }
  });

  test('the sizes a stage declares are the ones checked; a stage with reject and no sizes decides alone', () => {
    const fifo = getPolicy('fifo');
    const resizing: Policy = { ...fifo, allocate: { ...fifo.allocate, sizes: () => [1, 2] } };
    const bigOnT4 = queued({ id: 'b', model: 'big', gpus: 4, gpuTypes: ['T4'] });
    assert.equal(round(resizing, [bigOnT4]).stats.unschedulable.length, 1);
    const owning: Policy = { ...fifo, allocate: { ...fifo.allocate, reject: () => [] } };
    assert.equal(round(owning, [bigOnT4]).stats.unschedulable.length, 0);
    assert.equal(round(fifo, [bigOnT4]).stats.unschedulable.length, 1);
  });
});
