import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { JobSpec, JobState } from '../../../../../lib/core/model/job.ts';
import { allocationGpuKeys } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState, type SchedulerState } from '../../../../../lib/core/model/state.ts';
import { allocationCounts } from '../../../../../lib/core/plugins/easyscale/counts.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

const perf = linearPerf({ V100: 2, P100: 1 });

const round = (
  policy: string,
  c: Cluster,
  jobs: JobState[],
  state: SchedulerState = initialSchedulerState(),
) => scheduleRound({ now: 100, cluster: c, jobs, state, policy: getPolicy(policy), perf });

const elastic = (
  id: string,
  maxP: number,
  heterogeneous: boolean,
  extra: Partial<JobSpec> = {},
): Partial<JobSpec> => ({
  id,
  gpus: maxP,
  batchSize: 8 * maxP,
  packable: false,
  elastic: { maxP, minGpus: 0, heterogeneous },
  ...extra,
});

const hostOf = (c: Cluster) => (id: string) => c.hosts.find((h) => h.id === id);

describe('easyscale policies', () => {
  // g0-h0: one V100; g1-h0, g1-h1: one P100 each.
  const mixed = cluster([
    { gpuType: 'V100', hosts: 1, gpusPerHost: 1 },
    { gpuType: 'P100', hosts: 2, gpusPerHost: 1 },
  ]);

  test('are registered', () => {
    for (const name of ['easyscale', 'easyscale-homo'])
      assert.ok(getPolicy(name).description.length > 40, name);
  });

  test("a heterogeneous job grows onto the idle P100s with the spec's EST split: V100 2, each P100 1", () => {
    const job = running(elastic('e', 4, true), on('V100', ['g0-h0', [0]], ['g1-h0', [0]]), {
      measuredThroughput: 0.66,
    });
    const out = round('easyscale', mixed, [job]);
    const next = out.plan.get('e')!;
    assert.deepEqual(allocationCounts(next, hostOf(mixed)), { P100: 2, V100: 1 });
    assert.equal(next.gpuType, 'P100', 'gpuType names the most numerous type');
    assert.deepEqual(allocationGpuKeys(next), ['g0-h0#0', 'g1-h0#0', 'g1-h1#0']);
    assert.deepEqual(next.ests, [[0, 1], [2], [3]]);
    assert.deepEqual(
      out.actions.map((a) => a.kind),
      ['rescale'],
    );
    // The scale-out is on trial, judged against the throughput measured before it.
    assert.deepEqual(out.state.elastic?.jobs.e?.trial, {
      from: { P100: 1, V100: 1 },
      to: { P100: 2, V100: 1 },
      gpuType: 'P100',
      before: 0.66,
    });
  });

  test('a scale-out measured slower is undone the next round, and not tried again from there', () => {
    const grown = on('V100', ['g0-h0', [0]], ['g1-h0', [0]], ['g1-h1', [0]]);
    const trial = { from: { P100: 1, V100: 1 }, to: { P100: 2, V100: 1 }, gpuType: 'P100', before: 0.66 };
    const state: SchedulerState = { round: 3, elastic: { jobs: { e: { trial } } } };
    const slower = running(
      elastic('e', 4, true),
      { ...grown, ests: [[0, 1], [2], [3]] },
      { measuredThroughput: 0.6 },
    );
    const out = round('easyscale', mixed, [slower], state);
    assert.deepEqual(allocationCounts(out.plan.get('e')!, hostOf(mixed)), { P100: 1, V100: 1 });
    assert.deepEqual(
      out.actions.map((a) => a.kind),
      ['rescale'],
    );
    assert.deepEqual(out.state.elastic?.jobs.e, {
      failed: [{ from: { P100: 1, V100: 1 }, gpuType: 'P100' }],
    });
    // Back on V100 + P100 with the failure remembered, the job does not propose the P100 again.
    const back = running(elastic('e', 4, true), out.plan.get('e')!, { measuredThroughput: 0.66 });
    const again = round('easyscale', mixed, [back], out.state);
    assert.equal(again.actions.length, 0);
    // Faster than before: kept, the trial is over.
    const faster = running(
      elastic('e', 4, true),
      { ...grown, ests: [[0, 1], [2], [3]] },
      { measuredThroughput: 0.9 },
    );
    const kept = round('easyscale', mixed, [faster], state);
    assert.equal(kept.actions.length, 0);
    assert.equal(kept.state.elastic, undefined);
  });

  test('easyscale-homo never mixes types: a job on the V100 stays there', () => {
    const job = running(elastic('e', 4, true), on('V100', ['g0-h0', [0]]), { measuredThroughput: 0.5 });
    assert.equal(round('easyscale-homo', mixed, [job]).actions.length, 0);
    const hetero = round('easyscale', mixed, [job]).plan.get('e')!;
    assert.deepEqual(allocationCounts(hetero, hostOf(mixed)), { P100: 1, V100: 1 });
    // A job whose kernels are hardware-specific is homogeneous under easyscale too.
    const conv = running(elastic('c', 4, false), on('V100', ['g0-h0', [0]]), { measuredThroughput: 0.5 });
    assert.equal(round('easyscale', mixed, [conv]).actions.length, 0);
  });

  test('elastic jobs yield: a guaranteed job gets the GPUs an elastic job holds in the same round', () => {
    const four = cluster([{ gpuType: 'V100', hosts: 1, gpusPerHost: 4 }]);
    const holder = running(
      elastic('e', 4, false, { submitTime: 0 }),
      {
        ...on('V100', ['g0-h0', [0, 1, 2, 3]]),
        ests: [[0], [1], [2], [3]],
      },
      { measuredThroughput: 1 },
    );
    const small = queued({ id: 'g', gpus: 2, submitTime: 50 });
    const out = round('easyscale', four, [holder, small]);
    const g = out.plan.get('g')!;
    const e = out.plan.get('e')!;
    assert.equal(g.slices[0]!.gpus.length, 2);
    assert.equal(allocationGpuKeys(e).length, 2);
    assert.deepEqual(e.ests, [
      [0, 1],
      [2, 3],
    ]);
    assert.ok(
      allocationGpuKeys(g).every((k) => !allocationGpuKeys(e).includes(k)),
      'no GPU shared',
    );
    // The scale-in comes first, so the GPUs are free when the guaranteed job starts.
    assert.deepEqual(
      out.actions.map((a) => [a.kind, 'jobId' in a ? a.jobId : '']),
      [
        ['rescale', 'e'],
        ['start', 'g'],
      ],
    );
    // A guaranteed job that needs every GPU sends the elastic job back to the queue.
    const big = queued({ id: 'G', gpus: 4, submitTime: 50 });
    const out2 = round('easyscale', four, [holder, big]);
    assert.deepEqual([...out2.plan.keys()], ['G']);
    assert.deepEqual(
      out2.actions.map((a) => a.kind),
      ['stop', 'start'],
    );
  });

  test('guaranteed jobs are scheduled exactly as by yarn-cs', () => {
    const c = cluster([
      { gpuType: 'V100', hosts: 2, gpusPerHost: 4 },
      { gpuType: 'P100', hosts: 2, gpusPerHost: 2 },
    ]);
    const jobs = [
      running({ id: 'r', gpus: 2, submitTime: 0 }, on('V100', ['g0-h0', [0, 1]])),
      queued({ id: 'a', gpus: 8, submitTime: 1, preferredGpuType: 'V100' }),
      queued({ id: 'b', gpus: 2, submitTime: 2, preferredGpuType: 'V100' }),
      queued({ id: 'c', gpus: 2, submitTime: 3 }),
    ];
    const withTier = round('easyscale', c, jobs);
    const baseline = round('yarn-cs', c, jobs);
    assert.deepEqual([...withTier.plan], [...baseline.plan]);
    assert.deepEqual(withTier.actions, baseline.actions);
  });
});
