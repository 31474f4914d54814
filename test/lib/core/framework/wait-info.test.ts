import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../lib/core/framework/stages.ts';
import { describeSeconds } from '../../../../lib/core/framework/wait-info.ts';
import type { Cluster } from '../../../../lib/core/model/cluster.ts';
import type { JobState } from '../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../lib/core/model/state.ts';
import { dallyPolicy } from '../../../../lib/core/plugins/dally/policies.ts';
import { fixedTimers } from '../../../../lib/core/plugins/dally/timers.ts';
import { getPolicy } from '../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, queued, running } from '../../../support/fixtures.ts';

const A100 = 'A100-40GB';
const round = (c: Cluster, jobs: JobState[], policy: Policy, now = 0) =>
  scheduleRound({ now, cluster: c, jobs, state: initialSchedulerState(), policy, perf: linearPerf() });

// linearPerf: a job runs at (GPUs × type speed) iterations per second on one machine; restart costs 30 s.
describe('why a job waits, its place in the queue and when it should start', () => {
  const oneHost = cluster([{ gpuType: A100, hosts: 1, gpusPerHost: 8 }]);
  /** 1-GPU jobs on GPUs 0…n−1 of the host, each 500 iterations from its end at 1 it/s: all end at 500 s. */
  const shortJobsOnGpus = (n: number) =>
    Array.from({ length: n }, (_, g) =>
      running({ id: `short${g}`, gpus: 1, iterations: 1000 }, on(A100, ['g0-h0', [g]]), {
        progress: 500,
        measuredThroughput: 1,
      }),
    );

  test('not enough free GPUs: how many are needed and free, how many jobs are ahead, start when GPUs free up', () => {
    const busy = running({ id: 'busy', gpus: 6, iterations: 6000 }, on(A100, ['g0-h0', [0, 1, 2, 3, 4, 5]]), {
      progress: 3000,
      measuredThroughput: 6,
    });
    const out = round(
      oneHost,
      [
        busy,
        queued({ id: 'a', gpus: 4, iterations: 400, submitTime: 0 }),
        queued({ id: 'b', gpus: 8, submitTime: 1 }),
      ],
      getPolicy('yarn-cs'),
    );
    assert.equal(out.plan.has('a'), false);
    // busy has 3000 iterations left at its measured 6/s: done at 500 s. a (4 GPUs) starts then, runs 30 + 400/4 s.
    assert.deepEqual(out.waiting.get('a'), {
      queuePosition: 1,
      waitReason: `4 × ${A100} needed, 2 free; first in the queue`,
      estimatedStart: 500,
    });
    assert.deepEqual(out.waiting.get('b'), {
      queuePosition: 2,
      waitReason: `8 × ${A100} needed, 2 free; 1 job ahead`,
      estimatedStart: 630,
    });
    assert.equal(out.waiting.has('busy'), false, 'running jobs do not wait');
  });

  test('a policy that resizes jobs says the job may start on fewer GPUs than it asked', () => {
    // 7 of 8 GPUs run short 1-GPU jobs; taking them for a long 4-GPU job does not pay in tessera's take rule.
    const short = shortJobsOnGpus(7);
    const big = queued({ id: 'big', gpus: 4, iterations: 400_000, submitTime: 0 });
    const reason = (policy: string) =>
      round(oneHost, [...short, big], getPolicy(policy)).waiting.get('big')?.waitReason;
    // tessera's Crius Cells run a job on half, its request or double it.
    assert.equal(reason('tessera'), `4 × ${A100} needed (it may start on 2), 1 free; first in the queue`);
    assert.equal(
      reason('yarn-cs'),
      `4 × ${A100} needed, 1 free; first in the queue`,
      'yarn-cs never resizes',
    );
  });

  test('the estimated start is when the fewest GPUs it may start on are free, and it starts then', () => {
    // 6 short 1-GPU jobs end at 500 s; a long 4-GPU job takes the 2 free GPUs now (at half its request).
    const short = shortJobsOnGpus(6);
    const first = queued({ id: 'first', gpus: 8, iterations: 8000, submitTime: 0 });
    const long = queued({ id: 'long', gpus: 4, iterations: 400_000, submitTime: 1 });
    const now = round(oneHost, [...short, first, long], getPolicy('tessera'));
    assert.deepEqual(now.waiting.get('first'), {
      queuePosition: 1,
      waitReason: `8 × ${A100} needed (it may start on 4), 0 free; first in the queue`,
      estimatedStart: 500, // with its request (8) it would be when `long` ends, ~200,000 s
    });
    const longRunning = running(long.spec, now.plan.get('long')!);
    const at500 = round(oneHost, [first, longRunning], getPolicy('tessera'), 500);
    assert.equal(at500.plan.get('first')?.cell?.gpus, 4, 'it starts at 500 s on 4 GPUs');
  });

  test('head-of-line blocking: GPUs are free but the policy holds the job for the one ahead', () => {
    const busy = running({ id: 'busy', gpus: 6, iterations: 600 }, on(A100, ['g0-h0', [0, 1, 2, 3, 4, 5]]));
    const out = round(
      oneHost,
      [busy, queued({ id: 'big', gpus: 4, submitTime: 0 }), queued({ id: 'small', gpus: 1, submitTime: 1 })],
      getPolicy('fifo'),
    );
    assert.equal(out.plan.has('small'), false, 'fifo does not let small pass big');
    assert.equal(out.waiting.get('small')?.queuePosition, 2);
    assert.equal(
      out.waiting.get('small')?.waitReason,
      `held for a higher-priority job (1 × ${A100} free); 1 job ahead`,
    );
  });

  test('a delay timer holding out for one machine: how long it may still wait, and that as the estimate', () => {
    // 2 hosts × 8 GPUs, 4 busy on each: 8 free GPUs, but not on one machine.
    const two = cluster([{ gpuType: A100, hosts: 2, gpusPerHost: 8 }]);
    const jobs = [
      running({ id: 'x', gpus: 4 }, on(A100, ['g0-h0', [0, 1, 2, 3]])),
      running({ id: 'y', gpus: 4 }, on(A100, ['g0-h1', [0, 1, 2, 3]])),
      queued({ id: 'w', gpus: 8, submitTime: 0 }),
    ];
    const policy = dallyPolicy({
      name: 't',
      description: '',
      timers: fixedTimers(600, 600),
      preemption: false,
    });
    const out = round(two, jobs, policy, 360);
    assert.equal(out.plan.has('w'), false);
    // Waited 360 s of a 600 s machine timer: 4 more minutes before it takes a rack.
    assert.deepEqual(out.waiting.get('w'), {
      queuePosition: 1,
      waitReason: 'waiting up to 4 min for one machine',
      estimatedStart: 600,
    });
  });

  test('a job no host can ever hold is unschedulable, listed after the waiting ones, without an estimate', () => {
    const out = round(
      oneHost,
      [queued({ id: 'huge', gpus: 16 }), queued({ id: 'ok', gpus: 8 })],
      getPolicy('srtf'),
    );
    assert.equal(out.plan.has('ok'), true);
    // Nobody else waits: the unschedulable job is the only entry.
    assert.deepEqual([...out.waiting.keys()], ['huge']);
    const huge = out.waiting.get('huge');
    assert.equal(huge?.queuePosition, 1);
    assert.match(huge?.waitReason ?? '', /^unschedulable: /);
    assert.equal(huge?.estimatedStart, undefined);
  });

  test('a preempted job says so', () => {
    const low = running({ id: 'low', gpus: 8, priority: 0 }, on(A100, ['g0-h0', [0, 1, 2, 3, 4, 5, 6, 7]]));
    const out = round(oneHost, [low, queued({ id: 'high', gpus: 8, priority: 5 })], getPolicy('srtf'));
    if (out.plan.has('high')) assert.match(out.waiting.get('low')?.waitReason ?? '', /^preempted/);
    else assert.fail('srtf should give the higher-priority job the GPUs');
  });

  test('durations read as a person would say them', () => {
    assert.deepEqual([30, 240, 5400, 9000, 86400].map(describeSeconds), [
      '30 s',
      '4 min',
      '1.5 h',
      '2.5 h',
      '24 h',
    ]);
  });
});
