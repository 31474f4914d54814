import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import type { Policy } from '../../../../../lib/core/framework/stages.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { ColocationEstimate, PerfModel } from '../../../../../lib/core/model/perf.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { type GavelProblem, solveMaxMinFairness } from '../../../../../lib/core/plugins/gavel/gavel-lp.ts';
import { gavelDecision } from '../../../../../lib/core/plugins/gavel/gavel-round.ts';
import { cluster, linearPerf, on, queued, running, stageContext } from '../../../../support/fixtures.ts';

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-6, `${what}: ${actual} ≠ ${expected}`);

describe("Gavel's max-min fairness program (HiGHS)", () => {
  test("a program on which HiGHS's dual simplex stops without an optimum is still solved, feasibly, at the optimum", () => {
    // From the held-out flagship matrix, where the stop ended the whole simulation (test/fixtures/lp/README.md).
    const fixture = new URL('../../../../fixtures/lp/gavel-dual-simplex-unknown.json.gz', import.meta.url);
    const problem: GavelProblem = JSON.parse(gunzipSync(readFileSync(fixture)).toString('utf8'));
    assert.throws(() => solveMaxMinFairness(problem, [{}]), /\{\}: notSet/);
    const a = solveMaxMinFairness(problem);
    const types = problem.capacity.length;
    const share = problem.jobs.map((_, m) =>
      a.single.slice(m * types, (m + 1) * types).reduce((x, y) => x + y, 0),
    );
    const used = problem.capacity.map((_, t) =>
      problem.jobs.reduce((n, job, m) => n + job.gpus * a.single[m * types + t]!, 0),
    );
    problem.pairs.forEach((pair, p) => {
      for (let t = 0; t < types; t++) {
        const y = a.pair[p * types + t]!;
        share[pair.a]! += y;
        share[pair.b]! += y;
        used[t]! += problem.jobs[pair.a]!.gpus * y;
      }
    });
    for (const [m, s] of share.entries()) assert.ok(s <= 1 + 1e-6, `job ${m} scheduled ${s} of the time`);
    for (const [t, u] of used.entries())
      assert.ok(u <= problem.capacity[t]! + 1e-6, `type ${t}: ${u} > ${problem.capacity[t]}`);
    close(
      a.minShare,
      solveMaxMinFairness(problem, [{ solver: 'ipm' }]).minShare,
      'the interior-point optimum',
    );
  });

  test('two jobs on one GPU share it equally in time', () => {
    const a = solveMaxMinFairness({
      capacity: [1],
      jobs: [
        { gpus: 1, weight: 1, throughput: [10] },
        { gpus: 1, weight: 1, throughput: [5] },
      ],
      pairs: [],
    });
    close(a.single[0]!, 0.5, 'x[0]');
    close(a.single[1]!, 0.5, 'x[1]');
    close(a.minShare, 0.5, 'min share');
  });

  test('a pair whose speeds sum above 1 beats time-slicing', () => {
    const a = solveMaxMinFairness({
      capacity: [1],
      jobs: [
        { gpus: 1, weight: 1, throughput: [10] },
        { gpus: 1, weight: 1, throughput: [5] },
      ],
      pairs: [{ a: 0, b: 1, speedA: [0.7], speedB: [0.7] }],
    });
    close(a.pair[0]!, 1, 'y');
    close(a.minShare, 0.7, 'min share');
  });

  test('heterogeneity-aware: each job gets the type where it is relatively fastest', () => {
    // Job 0 is 10× faster on type 0; job 1 equally fast on both; job 2 (2 GPUs) 2× faster on type 0.
    const a = solveMaxMinFairness({
      capacity: [2, 2],
      jobs: [
        { gpus: 1, weight: 1, throughput: [10, 1] },
        { gpus: 1, weight: 1, throughput: [5, 5] },
        { gpus: 2, weight: 1, throughput: [4, 2] },
      ],
      pairs: [],
    });
    close(a.single[0 * 2 + 0]!, 1, 'job 0 on type 0');
    close(a.single[1 * 2 + 1]!, 1, 'job 1 on type 1');
    close(a.minShare, 1, 'every job at least its proportional throughput');
    // Capacity holds on both types.
    for (let t = 0; t < 2; t++) {
      const used = a.single[0 * 2 + t]! + a.single[1 * 2 + t]! + 2 * a.single[2 * 2 + t]!;
      assert.ok(used <= 2 + 1e-6, `type ${t} over capacity: ${used}`);
    }
  });

  test('priority weights: a weight-2 job needs twice the throughput for the same share', () => {
    const a = solveMaxMinFairness({
      capacity: [1],
      jobs: [
        { gpus: 1, weight: 2, throughput: [1] },
        { gpus: 1, weight: 1, throughput: [1] },
      ],
      pairs: [],
    });
    close(a.single[0]!, 2 / 3, 'weighted job');
    close(a.single[1]!, 1 / 3, 'other job');
  });

  test('no job able to run anywhere: nothing is allocated', () => {
    const a = solveMaxMinFairness({
      capacity: [1],
      jobs: [{ gpus: 2, weight: 1, throughput: [5] }],
      pairs: [],
    });
    assert.deepEqual([...a.single], [0]);
    assert.equal(a.minShare, 0);
  });

  test('rejects malformed problems', () => {
    assert.throws(
      () =>
        solveMaxMinFairness({ capacity: [1], jobs: [{ gpus: 1, weight: 1, throughput: [1, 2] }], pairs: [] }),
      /job 0 has 2 throughputs for 1 types/,
    );
    assert.throws(
      () =>
        solveMaxMinFairness({
          capacity: [2],
          jobs: [
            { gpus: 1, weight: 1, throughput: [1] },
            { gpus: 2, weight: 1, throughput: [1] },
          ],
          pairs: [{ a: 0, b: 1, speedA: [0.9], speedB: [0.9] }],
        }),
      /pair 0 must join two different jobs of equal GPU count/,
    );
  });
});

describe("Gavel's round mechanism", () => {
  const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 2 }]);
  const h = c.hosts[0]!.id;
  const decide = (jobs: JobState[], now: number, perf: PerfModel = linearPerf()) =>
    gavelDecision(
      jobs,
      roundContext({
        now,
        cluster: c,
        jobs,
        state: initialSchedulerState(),
        policy: {} as Policy,
        perf,
        config: { roundSeconds: 360 },
      }),
    );

  test('time-slices: the job that has received least of its share runs', () => {
    // Three 1-GPU jobs on two GPUs: each gets 2/3 of the time; the ones that ran most wait this round.
    const ranLong = running({ id: 'long', submitTime: 0 }, on('A100', [h, [0]]), {
      runningSeconds: 3_000,
      runningSince: 0,
    });
    const ranShort = running({ id: 'short', submitTime: 0 }, on('A100', [h, [1]]), {
      runningSeconds: 1_000,
      runningSince: 2_000,
    });
    const waiting = { ...queued({ id: 'wait', submitTime: 0 }), runningSeconds: 0 };
    const decision = decide([ranLong, ranShort, waiting], 3_600);
    assert.deepEqual([...decision.demands.keys()].sort(), ['short', 'wait']);
  });

  test('a job started less than a round ago keeps its lease', () => {
    const fresh = running({ id: 'fresh', submitTime: 0 }, on('A100', [h, [0]]), {
      runningSeconds: 3_000,
      runningSince: 3_500,
    });
    const other = running({ id: 'other', submitTime: 0 }, on('A100', [h, [1]]), {
      runningSeconds: 100,
      runningSince: 0,
    });
    const waiting = queued({ id: 'wait', submitTime: 0 });
    const decision = decide([fresh, other, waiting], 3_600);
    assert.ok(decision.demands.has('fresh'));
  });

  test('packs a pair the program chooses: the guest follows its leader', () => {
    const perf: PerfModel = {
      ...linearPerf(),
      colocation: (): ColocationEstimate => ({ normalized: [0.8, 0.8], source: 'measured' }),
    };
    const one = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 1 }]);
    const jobs = [queued({ id: 'a', model: 'resnet50' }), queued({ id: 'b', model: 'vgg19' })];
    const decision = gavelDecision(jobs, stageContext(one, jobs, perf));
    assert.equal(decision.demands.size, 1);
    const [leader] = [...decision.demands.keys()];
    assert.equal(decision.guests.get(leader!), leader === 'a' ? 'b' : 'a');
  });
});
