import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { GpuCounts } from '../../../../../lib/core/plugins/easyscale/counts.ts';
import {
  type ElasticCandidate,
  scheduleElastic,
} from '../../../../../lib/core/plugins/easyscale/inter-job.ts';
import type { ElasticJobModel } from '../../../../../lib/core/plugins/easyscale/job-model.ts';
import { type ElasticJobMemory, judgeTrial } from '../../../../../lib/core/plugins/easyscale/memory.ts';
import { queued, running } from '../../../../support/fixtures.ts';
import { jobModel } from './job-model-fixture.ts';

const elasticSpec = (id: string, maxP: number, submitTime: number) => ({
  id,
  submitTime,
  gpus: maxP,
  elastic: { maxP, minGpus: 0, heterogeneous: false },
});

/** A job holding `held` (the allocation itself does not matter to the count-level scheduler). */
const holder = (id: string, maxP: number, measured: number | undefined, submitTime = 0): JobState =>
  running(
    elasticSpec(id, maxP, submitTime),
    { gpuType: 'V100', slices: [{ hostId: 'h', gpus: [0] }] },
    {
      ...(measured !== undefined ? { measuredThroughput: measured } : {}),
    },
  );

const candidate = (
  job: JobState,
  model: ElasticJobModel,
  held: GpuCounts,
  memory?: ElasticJobMemory,
): ElasticCandidate => ({ job, model, held, ...(memory ? { memory } : {}) });

const v100 = (maxP: number) => jobModel({ V100: 1 }, maxP, { homogeneous: true });

describe('inter-job scheduler', () => {
  test('jobs holding GPUs keep them; jobs without get their minimal plan first come first served, if it fits', () => {
    const a = candidate(holder('a', 2, 1), v100(2), { V100: 2 });
    const b = candidate(queued(elasticSpec('b', 4, 1)), v100(4), {});
    const c = candidate(queued(elasticSpec('c', 4, 2)), v100(4), {});
    const roomy = scheduleElastic([a, b, c], { V100: 4 });
    assert.deepEqual(
      [...roomy.decisions].map(([id, d]) => [id, d.reason, d.plan.counts]),
      [
        ['a', 'keep', { V100: 2 }],
        ['b', 'start', { V100: 1 }],
        ['c', 'start', { V100: 1 }],
      ],
    );
    const tight = scheduleElastic([a, b, c], { V100: 3 });
    assert.deepEqual([...tight.decisions.keys()], ['a', 'b']);
    assert.deepEqual(tight.free, {});
  });

  test('yielding: when guaranteed jobs take GPUs, the elastic job scales in, and waits when none are left', () => {
    const a = candidate(holder('a', 8, 1), v100(8), { V100: 4 });
    const shrunk = scheduleElastic([a], { V100: 2 }).decisions.get('a')!;
    assert.equal(shrunk.reason, 'shrink');
    assert.deepEqual(shrunk.plan.counts, { V100: 2 });
    assert.equal(scheduleElastic([a], {}).decisions.size, 0);
    // The younger job yields first.
    const b = candidate(holder('b', 8, 1, 5), v100(8), { V100: 4 });
    const both = scheduleElastic([a, b], { V100: 5 });
    assert.deepEqual(both.decisions.get('a')!.plan.counts, { V100: 4 });
    assert.deepEqual(both.decisions.get('b')!.plan.counts, { V100: 1 });
    // Below minGpus a job cannot run: it waits and gives its GPUs back.
    const needy = candidate(holder('n', 8, 1), jobModel({ V100: 1 }, 8, { homogeneous: true, minGpus: 3 }), {
      V100: 4,
    });
    const out = scheduleElastic([needy], { V100: 2 });
    assert.equal(out.decisions.size, 0);
    assert.deepEqual(out.free, { V100: 2 });
  });

  test('proposals are accepted by speedup per GPU, ties to more GPUs, one per job, while they fit', () => {
    // x: 2 GPUs, maxP 12 → best proposal +2 (inc 1.5). y: 1 GPU, maxP 3 → +1 (2 ESTs on each of 2: ×1.5, inc 1.5).
    // z: 1 GPU, maxP 2 → +1 (×2, inc 2): the best, accepted first.
    const y = candidate(holder('y', 3, 1, 0), v100(3), { V100: 1 });
    const x = candidate(holder('x', 12, 1, 1), v100(12), { V100: 2 });
    const z = candidate(holder('z', 2, 1, 2), v100(2), { V100: 1 });
    const out = scheduleElastic([y, x, z], { V100: 4 + 3 });
    assert.deepEqual(
      out.proposals.map((p) => [p.jobId, p.added, p.incPerf]),
      [
        ['z', 1, 2],
        ['x', 2, 1.5], // the tie goes to the proposal with more GPUs, although y came first
        ['y', 1, 1.5],
      ],
    );
    // 3 GPUs free after the holders keep theirs: z takes 1, x takes 2, y's does not fit.
    assert.deepEqual(
      [...out.decisions].map(([id, d]) => [id, d.reason, d.plan.counts]),
      [
        ['y', 'keep', { V100: 1 }],
        ['x', 'grow', { V100: 4 }],
        ['z', 'grow', { V100: 2 }],
      ],
    );
    // One proposal per job even when it submits several (one per GPU type) and both would fit.
    const mixed = candidate(holder('m', 8, 1), jobModel({ V100: 2, P100: 1 }, 8), { V100: 1 });
    const one = scheduleElastic([mixed], { V100: 3, P100: 3 });
    assert.equal(one.proposals.length, 2);
    assert.deepEqual(one.decisions.get('m')!.plan.counts, { V100: 2 });
  });

  test('no proposal before the current GPUs were measured, or while a scale-out waits for its measurement', () => {
    const unmeasured = candidate(holder('u', 8, undefined), v100(8), { V100: 1 });
    assert.equal(scheduleElastic([unmeasured], { V100: 8 }).decisions.get('u')!.reason, 'keep');
    const trial = { from: { V100: 1 }, to: { V100: 2 }, gpuType: 'V100', before: 1 };
    const pending = candidate(holder('p', 8, undefined), v100(8), { V100: 2 }, { trial });
    assert.deepEqual(scheduleElastic([pending], { V100: 8 }).decisions.get('p')!.plan.counts, { V100: 2 });
  });

  test('fallback: a scale-out measured slower goes back to the GPUs before it and is not proposed again', () => {
    const trial = { from: { V100: 2 }, to: { V100: 4 }, gpuType: 'V100', before: 1 };
    assert.equal(judgeTrial({ trial }, { V100: 4 }, 0.9).kind, 'reverted');
    assert.equal(judgeTrial({ trial }, { V100: 4 }, 1.1).kind, 'kept');
    assert.equal(judgeTrial({ trial }, { V100: 4 }, undefined).kind, 'pending');
    assert.equal(
      judgeTrial({ trial }, { V100: 3 }, 0.5).kind,
      'none',
      'a trial on GPUs no longer held is void',
    );

    const slower = candidate(holder('s', 8, 0.9), v100(8), { V100: 4 }, { trial });
    const back = scheduleElastic([slower], { V100: 8 }).decisions.get('s')!;
    assert.equal(back.reason, 'fallback');
    assert.deepEqual(back.plan.counts, { V100: 2 });

    const faster = candidate(holder('f', 8, 1.1), v100(8), { V100: 4 }, { trial });
    assert.equal(scheduleElastic([faster], { V100: 8 }).decisions.get('f')!.reason, 'grow');

    const failed = [{ from: { V100: 2 }, gpuType: 'V100' }];
    const blocked = candidate(holder('b', 8, 1), v100(8), { V100: 2 }, { failed });
    assert.equal(scheduleElastic([blocked], { V100: 8 }).decisions.get('b')!.reason, 'keep');
  });

  test('a job falling back after a move takes its old GPUs back only if nobody else kept them', () => {
    // m moved from 2 T4 to 2 V100 and got slower.
    const model = jobModel({ V100: 2, T4: 1 }, 4);
    const trial = { from: { T4: 2 }, to: { V100: 2 }, gpuType: 'V100', before: 1 };
    const m = candidate(holder('m', 4, 0.5, 0), model, { V100: 2 }, { trial });
    const back = scheduleElastic([m], { V100: 2, T4: 2 }).decisions.get('m')!;
    assert.equal(back.reason, 'fallback');
    assert.deepEqual(back.plan.counts, { T4: 2 });
    // Meanwhile the T4s went to k, who holds them now: m keeps the V100s (slower is better than nothing).
    const k = candidate(holder('k', 2, 1, 1), jobModel({ T4: 1 }, 2, { homogeneous: true }), { T4: 2 });
    const out = scheduleElastic([m, k], { V100: 2, T4: 2 });
    assert.deepEqual(out.decisions.get('k')!.plan.counts, { T4: 2 });
    assert.equal(out.decisions.get('m')!.reason, 'keep');
    assert.deepEqual(out.decisions.get('m')!.plan.counts, { V100: 2 });
    assert.equal(out.proposals.length, 0, 'no new proposal in the round it was judged slower');
  });
});
