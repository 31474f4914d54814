import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import { newJobState } from '../../../../../lib/core/model/job.ts';
import { relabelMigration } from '../../../../../lib/core/plugins/tesserae/relabel.ts';
import {
  keepsEveryRunningJob,
  relabelUnlessInPlace,
} from '../../../../../lib/core/plugins/tesserae/relabel-unless-in-place.ts';
import { cluster, freeAfter, on, running, spec, stageContext } from '../../../../support/fixtures.ts';

const context = (c: Cluster, jobs: Parameters<typeof roundContext>[0]['jobs']) => stageContext(c, jobs);

describe('relabelling unless the plan keeps every running job in place', () => {
  const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 4 }]);
  const [h0, h1] = c.hosts.map((h) => h.id) as [string, string];
  const a = running({ id: 'A' }, on('A100', [h0, [0, 1]]));
  const b = running({ id: 'B' }, on('A100', [h1, [2]]));
  const fresh = newJobState(spec({ id: 'N' }));

  test('a plan that keeps every running job on its GPUs comes back as the very plan, free GPUs untouched', () => {
    const plan = new Map([
      ['A', on('A100', [h0, [0, 1]])],
      ['B', on('A100', [h1, [2]])],
      ['N', on('A100', [h0, [2, 3]])],
    ]);
    const jobs = [a, b, fresh];
    assert.equal(keepsEveryRunningJob(jobs, plan), true);
    const free = freeAfter(c, plan);
    const out = relabelUnlessInPlace.relabel(jobs, plan, free, context(c, jobs));
    assert.equal(out, plan);
    assert.equal(free.freeOf('A100'), 3);
    assert.equal(free.isFree(h1, 2), false);
  });

  test('a plan that moves a running job is relabelled as Tesserae would', () => {
    // B's work is planned on h0's GPU 2: the renaming puts it back on h1's GPU 2.
    const plan = new Map([
      ['A', on('A100', [h0, [0, 1]])],
      ['B', on('A100', [h0, [2]])],
    ]);
    const jobs = [a, b];
    assert.equal(keepsEveryRunningJob(jobs, plan), false);
    const ctx = context(c, jobs);
    const expected = relabelMigration.relabel(jobs, new Map(plan), freeAfter(c, plan), ctx);
    const free = freeAfter(c, plan);
    const out = relabelUnlessInPlace.relabel(jobs, new Map(plan), free, ctx);
    assert.deepEqual(out, expected);
    assert.deepEqual(out.get('B')?.slices, [{ hostId: h1, gpus: [2] }]);
    assert.equal(free.isFree(h1, 2), false);
    assert.equal(free.isFree(h0, 2), true);
  });

  test('a running job that changes GPU type does not stop the shortcut; slices out of plan form do', () => {
    const typed = running({ id: 'T' }, on('V100', ['elsewhere', [0]]));
    assert.equal(keepsEveryRunningJob([typed], new Map([['T', on('A100', [h0, [0]])]])), true);
    assert.equal(keepsEveryRunningJob([a], new Map([['A', on('A100', [h0, [1, 0]])]])), false);
  });
});
