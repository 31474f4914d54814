import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import { AdaptiveParallelPerfModel } from '../../../../../lib/core/plugins/crius/adaptive-perf.ts';
import { consolidatedLayout } from '../../../../../lib/core/plugins/crius/estimator.ts';
import { CRIUS_ESTIMATOR } from '../../../../../lib/core/plugins/crius/policies.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { simulate } from '../../../../../lib/sim/simulator.ts';
import { cluster, linearPerf, queued, spec } from '../../../../support/fixtures.ts';

const hetero = cluster([
  { gpuType: 'A100-40GB', hosts: 2, gpusPerHost: 4 },
  { gpuType: 'A10', hosts: 4, gpusPerHost: 2 },
]);
const perf = linearPerf();

const round = (policy: string, jobs: JobState[], now = 0) =>
  scheduleRound({
    now,
    cluster: hetero,
    jobs,
    state: initialSchedulerState(),
    policy: getPolicy(policy),
    perf,
  });

const bert = (id: string, extra: Parameters<typeof spec>[0] = {}) =>
  spec({ id, model: 'bert-1.3b', batchSize: 256, gpus: 4, iterations: 1_000, packable: false, ...extra });

const used = (plan: ReturnType<typeof round>['plan']) => {
  const byType = new Map<string, number>();
  for (const a of plan.values()) byType.set(a.gpuType, (byType.get(a.gpuType) ?? 0) + allocationGpuCount(a));
  return byType;
};

const running = (job: JobState, plan: ReturnType<typeof round>['plan']): JobState => {
  const allocation = plan.get(job.spec.id);
  return allocation ? { ...job, status: 'running', allocation, runningSince: 0 } : job;
};

describe('crius policies', () => {
  test('every admitted job gets a Cell of its type and count; no type is over capacity', () => {
    const jobs = Array.from({ length: 8 }, (_, i) =>
      queued(bert(`j${i}`, { submitTime: i, preferredGpuType: i % 2 ? 'A10' : 'A100-40GB' })),
    );
    const out = round('crius', jobs);
    assert.ok(out.plan.size >= 4);
    for (const [id, a] of out.plan) {
      assert.ok(a.cell, id);
      assert.equal(a.cell.gpuType, a.gpuType);
      assert.equal(a.cell.gpus, allocationGpuCount(a));
      assert.equal(
        a.cell.stageGpus.reduce((x, y) => x + y, 0),
        a.cell.gpus,
      );
      assert.ok(a.cell.tuningHints && a.cell.tuningHints.length === a.cell.stageGpus.length);
    }
    const u = used(out.plan);
    assert.ok((u.get('A100-40GB') ?? 0) <= 8 && (u.get('A10') ?? 0) <= 8);
    assert.ok(out.actions.every((a) => a.kind === 'start'));
  });

  test('Crius-NA keeps every requested count; Crius-NH keeps every requested type', () => {
    const jobs = Array.from({ length: 6 }, (_, i) =>
      queued(bert(`j${i}`, { submitTime: i, preferredGpuType: 'A10' })),
    );
    for (const a of round('crius-na', jobs).plan.values()) assert.equal(allocationGpuCount(a), 4);
    for (const a of round('crius-nh', jobs).plan.values()) assert.equal(a.gpuType, 'A10');
    // Plain Crius uses the A100s too.
    assert.ok([...round('crius', jobs).plan.values()].some((a) => a.gpuType === 'A100-40GB'));
  });

  test('a waiting job makes room by downscaling running ones (within {N/2, N, 2N})', () => {
    const first = Array.from({ length: 4 }, (_, i) => queued(bert(`r${i}`, { submitTime: i })));
    const out1 = round('crius', first);
    const states = first.map((j) => running(j, out1.plan));
    assert.equal(states.filter((j) => j.allocation).length, 4);
    const late = queued(bert('late', { submitTime: 100 }));
    const out2 = round('crius', [...states, late], 200);
    assert.ok(out2.plan.has('late'), 'the newcomer is admitted');
    for (const a of out2.plan.values()) assert.ok(allocationGpuCount(a) >= 2);
    assert.ok(
      out2.actions.some((a) => a.kind === 'rescale'),
      'someone was scaled down',
    );
  });

  test('opportunistic execution: an older waiting job suspends jobs that arrived after it', () => {
    const big = (id: string, submitTime: number) =>
      spec({
        id,
        model: 'bert-1.3b',
        batchSize: 256,
        gpus: 8,
        iterations: 1_000,
        submitTime,
        packable: false,
        gpuTypes: ['A100-40GB'],
      });
    const small = (id: string, submitTime: number) =>
      spec({
        id,
        model: 'bert-0.76b',
        batchSize: 128,
        gpus: 4,
        iterations: 1_000,
        submitTime,
        packable: false,
        gpuTypes: ['A100-40GB'],
      });
    // Two later small jobs hold the A100s; the older big job (which needs at least 4) waits.
    const holders = [queued(small('s1', 10)), queued(small('s2', 11))];
    const out1 = round('crius-na', holders);
    const states = holders.map((j) => running(j, out1.plan));
    assert.equal(states.filter((j) => j.allocation).length, 2);
    const out2 = round('crius-na', [queued(big('old', 0)), ...states], 60);
    assert.ok(out2.plan.has('old'));
    assert.deepEqual(
      out2.actions
        .filter((a) => a.kind === 'stop')
        .map((a) => a.jobId)
        .sort(),
      ['s1', 's2'],
    );
  });

  test('a job no Cell fits is ended as unschedulable with the reason', () => {
    const huge = queued(
      spec({ id: 'huge', model: 'moe-27b', batchSize: 512, gpus: 2, iterations: 10, packable: false }),
    );
    const out = round('crius', [huge]);
    assert.equal(out.plan.size, 0);
    assert.deepEqual(out.actions, [{ kind: 'stop', jobId: 'huge', reason: 'unschedulable' }]);
    assert.match(out.stats.unschedulable[0]?.reason ?? '', /no Cell of moe-27b/);
  });

  test('Crius-DDL admits a job only on a Cell that meets its deadline and drops hopeless ones early', () => {
    const layout = consolidatedLayout(8, 4);
    const fastest = CRIUS_ESTIMATOR.best({
      model: 'bert-1.3b',
      batchSize: 256,
      gpuType: 'A100-40GB',
      gpus: 8,
      layout,
    });
    const seconds = 1_000 / fastest.iterationsPerSecond;
    const hopeless = queued(bert('hopeless', { deadline: seconds / 2 }));
    const tight = queued(bert('tight', { deadline: seconds * 1.2 + 60, submitTime: 1 }));
    const relaxed = queued(bert('relaxed', { deadline: seconds * 100, submitTime: 2 }));
    const out = round('crius-ddl', [hopeless, tight, relaxed]);
    assert.ok(
      out.actions.some((a) => a.kind === 'stop' && a.jobId === 'hopeless' && a.reason === 'unschedulable'),
    );
    assert.match(out.stats.unschedulable.find((u) => u.jobId === 'hopeless')?.reason ?? '', /deadline/);
    // Only 8 A100s at 2N = 8 finish `tight` in time.
    const t = out.plan.get('tight');
    assert.ok(t);
    assert.equal(t.gpuType, 'A100-40GB');
    assert.equal(allocationGpuCount(t), 8);
    assert.ok(out.plan.has('relaxed'));
    // Plain Crius never drops for a deadline.
    assert.ok(round('crius', [hopeless]).plan.has('hopeless'));
  });

  test('calibration: observed throughput is folded into the state', () => {
    const job = queued(bert('j', { preferredGpuType: 'A10' }));
    const out1 = round('crius', [job]);
    const a = out1.plan.get('j')!;
    const estimate = CRIUS_ESTIMATOR.estimate({
      model: 'bert-1.3b',
      batchSize: 256,
      gpuType: a.gpuType,
      gpus: a.cell!.gpus,
      stages: a.cell!.stageGpus.length,
      layout: consolidatedLayout(a.cell!.gpus, a.gpuType === 'A10' ? 2 : 4),
    });
    const state = { ...running(job, out1.plan), measuredThroughput: 0.8 * estimate.iterationsPerSecond };
    const out2 = scheduleRound({
      now: 60,
      cluster: hetero,
      jobs: [state],
      state: out1.state,
      policy: getPolicy('crius'),
      perf,
    });
    const calibration = out2.state.cellCalibration;
    assert.ok(Math.abs((calibration?.cells.j?.ratio ?? 0) - 0.8) < 1e-9);
    assert.ok(Math.abs((calibration?.efficiency[`bert-1.3b|${a.gpuType}`] ?? 0) - 0.8) < 1e-9);
  });

  test('fcfs is the fifo baseline under the Crius paper’s name', () => {
    assert.equal(getPolicy('fcfs').allocate, getPolicy('fifo').allocate);
  });

  test('a simulation with the adaptive executor: every job completes on its Cells', () => {
    const truth = new AdaptiveParallelPerfModel({ base: perf });
    const jobs = Array.from({ length: 6 }, (_, i) =>
      bert(`s${i}`, {
        submitTime: i * 30,
        iterations: 50,
        gpus: i % 2 ? 2 : 4,
        preferredGpuType: i % 2 ? 'A10' : 'A100-40GB',
      }),
    );
    let cells = 0;
    const result = simulate({
      cluster: hetero,
      jobs,
      policy: getPolicy('crius'),
      perf,
      truth,
      config: { roundSeconds: 60, restartSeconds: 10 },
      onRound: (_now, out) => {
        for (const a of out.plan.values()) if (a.cell) cells++;
      },
    });
    assert.equal(result.jobs.filter((j) => j.outcome === 'completed').length, 6);
    assert.ok(cells > 0);
  });
});
