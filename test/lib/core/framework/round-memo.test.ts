import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benchCluster, steadyState } from '../../../../bench/round.ts';
import { type RoundOutput, scheduleRound } from '../../../../lib/core/framework/round.ts';
import { memoKey, RoundMemo } from '../../../../lib/core/framework/round-memo.ts';
import type { Policy } from '../../../../lib/core/framework/stages.ts';
import type { Cluster } from '../../../../lib/core/model/cluster.ts';
import { type JobState, newJobState } from '../../../../lib/core/model/job.ts';
import type { PerfModel } from '../../../../lib/core/model/perf.ts';
import { allocationGpuCount } from '../../../../lib/core/model/plan.ts';
import type { SchedulerState } from '../../../../lib/core/model/state.ts';
import { loadDefaultPerfModel } from '../../../../lib/data/perf.ts';

// The memo a shell carries between rounds holds derived data only: a round with a warm memo must decide exactly what
// a round with a cold one decides, also after the cluster, a job's spec or the perf model changed under it.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);
const serialised = (out: RoundOutput) => JSON.stringify([[...out.plan], out.actions, out.stats, out.state]);

/** The plan applied: planned jobs run (reporting a throughput, so calibration learns), the others wait. */
const applied = (jobs: readonly JobState[], out: RoundOutput, now: number): JobState[] =>
  jobs.flatMap((job): JobState[] => {
    if (out.stats.unschedulable.some((u) => u.jobId === job.spec.id)) return [];
    const allocation = out.plan.get(job.spec.id);
    if (!allocation)
      return [{ ...job, status: job.allocation ? 'suspended' : job.status, allocation: undefined }];
    const same = job.allocation && allocationGpuCount(job.allocation) === allocationGpuCount(allocation);
    return [
      {
        ...job,
        status: 'running',
        allocation: same ? job.allocation! : allocation,
        runningSince: job.runningSince ?? now,
        progress: Math.min(job.spec.iterations - 1, job.progress + 600),
        measuredThroughput: 0.5 + (job.spec.id.length % 5) / 10,
      },
    ];
  });

interface Round {
  readonly now: number;
  readonly cluster: Cluster;
  readonly jobs: readonly JobState[];
  readonly perf: PerfModel;
}

/** Rounds in sequence, each on the previous one's state; `memo` carried through all, or a fresh one each round. */
const run = (policy: Policy, rounds: readonly Round[], memo: RoundMemo | undefined): string[] => {
  let state: SchedulerState | undefined;
  const outputs: string[] = [];
  for (const r of rounds) {
    const out = scheduleRound({
      now: r.now,
      cluster: r.cluster,
      jobs: r.jobs,
      state: state ?? steadyState(cluster, 10, 'fifo', perf, 1).state,
      policy,
      perf: r.perf,
      memo: memo ?? new RoundMemo(),
    });
    state = out.state;
    outputs.push(serialised(out));
  }
  return outputs;
};

/** Three rounds of a standing workload: the second applies the first's plan, the third the second's. */
const rounds = (
  name: string,
  change?: (round: Round, i: number) => Round,
): { policy: Policy; rounds: Round[] } => {
  const { policy, states, now } = steadyState(cluster, 300, name, perf, 3);
  const out: Round[] = [];
  let jobs: readonly JobState[] = states;
  for (let i = 0; i < 3; i++) {
    const base: Round = { now: now + 60 * i, cluster, jobs, perf };
    const round = change ? change(base, i) : base;
    out.push(round);
    const result = scheduleRound({
      ...round,
      state: steadyState(cluster, 10, 'fifo', perf, 1).state,
      policy,
    });
    jobs = applied(round.jobs, result, round.now);
  }
  return { policy, rounds: out };
};

describe('RoundMemo', () => {
  test('an entry is made once per owner and key, and owners do not share entries', () => {
    const memo = new RoundMemo();
    const key = memoKey<number[]>('test');
    const a = {};
    const made = memo.of(a, key, () => [1]);
    assert.equal(
      memo.of(a, key, () => [2]),
      made,
    );
    assert.deepEqual(
      memo.of({}, key, () => [3]),
      [3],
    );
    assert.deepEqual(
      memo.of(a, memoKey<number[]>('test'), () => [4]),
      [4],
      'keys compare by identity, not name',
    );
  });

  test('an entry that is undefined is still made once, and one owner keeps an entry per key', () => {
    const memo = new RoundMemo();
    const owner = {};
    let made = 0;
    const makeUndefined = (): undefined => {
      made++;
      return undefined;
    };
    const key = memoKey<undefined>('undefined entry');
    for (let i = 0; i < 3; i++) assert.equal(memo.of(owner, key, makeUndefined), undefined);
    assert.equal(made, 1);
    const other = memoKey<string>('other');
    assert.equal(
      memo.of(owner, other, () => 'x'),
      'x',
    );
    assert.equal(memo.of(owner, key, makeUndefined), undefined);
    assert.equal(made, 1);
  });

  for (const name of ['tessera', 'crius', 'srtf', 'tiresias']) {
    test(`${name}: rounds with a memo carried through give what rounds with a cold memo give`, () => {
      const { policy, rounds: rs } = rounds(name);
      assert.deepEqual(run(policy, rs, new RoundMemo()), run(policy, rs, undefined));
    });
  }

  test('tessera: hosts lost between rounds (less capacity) invalidate what the memo knew', () => {
    // One host (8 GPUs) left in the third round: a 16-GPU job that waited all along can never run any more.
    const lost: Cluster = {
      ...cluster,
      hosts: cluster.hosts.map((h, i) => (i >= 1 ? { ...h, state: 'lost' as const } : h)),
    };
    const big = newJobState({
      ...steadyState(cluster, 1, 'fifo', perf, 5).states[0]!.spec,
      id: 'big',
      gpus: 16,
    });
    const { policy, rounds: rs } = rounds('tessera', (r, i) => ({
      ...r,
      jobs: [...r.jobs.filter((j) => j.spec.id !== 'big'), big],
      ...(i === 2 ? { cluster: lost } : {}),
    }));
    const warm = run(policy, rs, new RoundMemo());
    assert.deepEqual(warm, run(policy, rs, undefined));
    const unschedulable = JSON.parse(warm[2]!)[2].unschedulable as { jobId: string; reason: string }[];
    assert.ok(
      unschedulable.some((u) => u.jobId === 'big' && u.reason.startsWith('needs 16 GPUs')),
      'the 16-GPU job ends as unschedulable',
    );
  });

  test("tessera: a job's spec replaced (same id, other model and size) is not answered from its old entries", () => {
    const { policy, rounds: rs } = rounds('tessera', (r, i) =>
      i === 2
        ? {
            ...r,
            jobs: r.jobs.map((j, k) =>
              k % 4 === 0 && !j.allocation
                ? { ...j, spec: { ...j.spec, model: 'resnet50', batchSize: 64, gpus: 2 * j.spec.gpus } }
                : j,
            ),
          }
        : r,
    );
    assert.deepEqual(run(policy, rs, new RoundMemo()), run(policy, rs, undefined));
  });

  test('tessera: another perf model (one model makes no progress) is not answered from the old one', () => {
    const { policy, rounds: before } = rounds('tessera');
    const victim = before[2]!.jobs.find((j) => !j.allocation)!.spec.model;
    const other: PerfModel = {
      name: 'other',
      throughput: (q) => {
        const e = perf.throughput(q);
        return q.model === victim ? { ...e, iterationsPerSecond: 0 } : e;
      },
      colocation: (...args) => perf.colocation(...args),
    };
    const rs = before.map((r, i) => (i === 2 ? { ...r, perf: other } : r));
    const warm = run(policy, rs, new RoundMemo());
    assert.deepEqual(warm, run(policy, rs, undefined));
    const unschedulable = JSON.parse(warm[2]!)[2].unschedulable as { reason: string }[];
    assert.ok(
      unschedulable.some((u) => u.reason.startsWith(`${victim} `)),
      `${victim} jobs end as making no progress`,
    );
  });
});
