import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { getPolicy, policyNames } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../../support/fixtures.ts';

const round = (policy: string, c: Cluster, jobs: JobState[], now = 100) =>
  scheduleRound({
    now,
    cluster: c,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf: linearPerf(),
  });

const oneHost = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]);

describe('baseline policies', () => {
  test('every named policy has a description and the baselines of issue 2 exist', () => {
    for (const name of ['fifo', 'yarn-cs', 'tiresias', 'gandiva', 'srtf', 'tessera']) {
      assert.ok(policyNames().includes(name), name);
      assert.ok(getPolicy(name).description.length > 20);
    }
    assert.throws(() => getPolicy('nope'), /unknown policy "nope"; known policies: fifo/);
  });

  test('fifo: the head job that does not fit blocks the smaller jobs behind it (head-of-line blocking)', () => {
    const holder = running({ id: 'holder', gpus: 4, submitTime: 0 }, on('A100', ['g0-h0', [0, 1, 2, 3]]));
    const big = queued({ id: 'big', gpus: 8, submitTime: 1 });
    const small = queued({ id: 'small', gpus: 1, submitTime: 2 });
    const out = round('fifo', oneHost, [holder, big, small]);
    assert.deepEqual([...out.plan.keys()], ['holder']);
    assert.equal(out.actions.length, 0);
    // A priority scheduler lets the small job through.
    assert.ok(round('tiresias', oneHost, [holder, big, small]).plan.has('small'));
  });

  test('fifo is non-preemptive: a running job keeps its GPUs whatever arrives', () => {
    const holder = running(
      { id: 'holder', gpus: 8, submitTime: 5 },
      on('A100', ['g0-h0', [0, 1, 2, 3, 4, 5, 6, 7]]),
    );
    const urgent = queued({ id: 'early', gpus: 8, submitTime: 0 });
    const out = round('fifo', oneHost, [holder, urgent]);
    assert.deepEqual([...out.plan.keys()], ['holder']);
  });

  test('yarn-cs: one GPU type per job, and a blocked type queue does not block other types', () => {
    const c = cluster([
      { gpuType: 'V100', hosts: 1, gpusPerHost: 4 },
      { gpuType: 'T4', hosts: 1, gpusPerHost: 4 },
    ]);
    const holder = running({ id: 'holder', gpus: 2, gpuTypes: ['V100'] }, on('V100', ['g0-h0', [0, 1]]));
    const v100Big = queued({ id: 'v-big', gpus: 4, gpuTypes: ['V100'], submitTime: 1 });
    const v100Small = queued({ id: 'v-small', gpus: 1, gpuTypes: ['V100'], submitTime: 2 });
    const t4 = queued({ id: 't4', gpus: 4, gpuTypes: ['T4'], submitTime: 3 });
    const out = round('yarn-cs', c, [holder, v100Big, v100Small, t4]);
    assert.ok(out.plan.has('t4'), 'another type queue proceeds');
    assert.ok(!out.plan.has('v-small'), 'head-of-line blocking inside the V100 queue');
    for (const allocation of out.plan.values()) {
      const types = new Set(allocation.slices.map((s) => c.hosts.find((h) => h.id === s.hostId)!.gpuType));
      assert.equal(types.size, 1);
      assert.equal([...types][0], allocation.gpuType);
    }
  });

  test('tiresias: a demoted running job is preempted for a fresh job in a higher queue', () => {
    const veteran = running({ id: 'veteran', gpus: 8 }, on('A100', ['g0-h0', [0, 1, 2, 3, 4, 5, 6, 7]]), {
      attainedService: 8 * 3600 * 2,
      runningSeconds: 7200,
    });
    const fresh = queued({ id: 'fresh', gpus: 8, submitTime: 50 });
    const out = round('tiresias', oneHost, [veteran, fresh]);
    assert.deepEqual([...out.plan.keys()], ['fresh']);
    assert.deepEqual(
      out.actions.map((a) => [a.kind, 'jobId' in a ? a.jobId : '']),
      [
        ['stop', 'veteran'],
        ['start', 'fresh'],
      ],
    );
  });

  test('gandiva: a job spread over two machines migrates to one machine once it frees up', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 2, gpusPerHost: 4 }]);
    const spread = running({ id: 'spread', gpus: 4 }, on('A100', ['g0-h0', [2, 3]], ['g0-h1', [0, 1]]));
    const out = round('gandiva', c, [spread]);
    const moved = out.actions.find((a) => a.kind === 'migrate');
    assert.ok(moved && moved.kind === 'migrate');
    assert.equal(moved.to.slices.length, 1);
    // fifo leaves it where it is.
    assert.equal(round('fifo', c, [spread]).actions.length, 0);
  });

  test('srtf: the job with the least remaining work goes first and preempts a longer one', () => {
    const long = running(
      { id: 'long', gpus: 8, iterations: 1e6 },
      on('A100', ['g0-h0', [0, 1, 2, 3, 4, 5, 6, 7]]),
    );
    const short = queued({ id: 'short', gpus: 8, iterations: 100, submitTime: 50 });
    const out = round('srtf', oneHost, [long, short]);
    assert.deepEqual([...out.plan.keys()], ['short']);
  });

  test('a job that can never fit is reported unschedulable, not left waiting forever', () => {
    const huge = queued({ id: 'huge', gpus: 16 });
    const wrongType = queued({ id: 'h100', gpus: 1, gpuTypes: ['H100'] });
    for (const name of policyNames()) {
      const out = round(name, oneHost, [huge, wrongType]);
      assert.deepEqual(
        out.stats.unschedulable.map((u) => u.jobId),
        ['huge', 'h100'],
        name,
      );
      assert.match(out.stats.unschedulable[0]!.reason, /needs 16 GPUs/);
      assert.match(out.stats.unschedulable[1]!.reason, /no GPU of an allowed type \(H100\)/);
      assert.deepEqual(
        out.actions.map((a) => a.kind),
        ['stop', 'stop'],
      );
    }
  });

  test('the same input gives the same plan (determinism)', () => {
    const c = cluster([{ gpuType: 'A100', hosts: 4, gpusPerHost: 8, hostsPerRack: 2 }]);
    const jobs = Array.from({ length: 40 }, (_, i) =>
      queued({ id: `q${i}`, gpus: [1, 2, 4, 8][i % 4]!, submitTime: i }),
    );
    for (const name of policyNames()) {
      const a = round(name, c, jobs);
      const b = round(name, c, [...jobs]);
      assert.deepEqual([...a.plan], [...b.plan], name);
      assert.deepEqual(a.actions, b.actions, name);
    }
  });
});
