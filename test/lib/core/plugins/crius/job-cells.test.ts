import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { benchCluster, steadyState } from '../../../../../bench/round.ts';
import { roundContext } from '../../../../../lib/core/framework/round.ts';
import { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { allocationGpuCount } from '../../../../../lib/core/model/plan.ts';
import { countsFor, jobCells, rawCell } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';

// Jobs of one shape share their raw Cells and, within a round, their calibration by the model's efficiency; a job's own
// Cells replace only the Cell it holds and the one its own ratio was observed on. That must equal computing every
// Cell of the job on its own — which `jobCells` still does for deadline jobs, so a deadline no Cell misses compares
// the two paths.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);
const { policy, states, state, now } = steadyState(cluster, 400, 'crius', perf, 11);
const options = { countScaling: true, typeScaling: true, deadlines: false };

describe('jobCells', () => {
  test("a job's Cells from its shape's shared Cells equal its Cells computed alone", () => {
    // Running jobs report throughput and some waiting ones were observed before: calibration has own ratios.
    const observed: JobState[] = states.map((j, i) =>
      j.allocation ? { ...j, measuredThroughput: 0.4 + (i % 9) / 10 } : j,
    );
    const first = roundContext({ now, cluster, jobs: observed, state, policy, perf });
    const ordered = policy.order.order(observed, first);
    const learned = policy.allocate.nextState!(ordered, new Map(), first);
    assert.ok(
      Object.keys(learned.cellCalibration?.cells ?? {}).length > 0,
      'running jobs have ratios of their own',
    );
    // Every third job also keeps a ratio observed on another of its Cells (a suspended job, or one that moved).
    const cells = { ...learned.cellCalibration!.cells };
    observed.forEach((job, i) => {
      if (i % 3 !== 0) return;
      const other = jobCells(job, first, CRIUS_ESTIMATOR, options).configs.find(
        (c) =>
          c.key !== cells[job.spec.id]?.cell && !(job.allocation && c.gpuType === job.allocation.gpuType),
      );
      if (other) cells[job.spec.id] = { cell: other.key, ratio: 0.3 + (i % 5) / 4 };
    });
    const calibrated = { ...learned, cellCalibration: { ...learned.cellCalibration!, cells } };
    const ctx = roundContext({
      now,
      cluster,
      jobs: observed,
      state: calibrated,
      policy,
      perf,
      memo: new RoundMemo(),
    });
    let holding = 0;
    let own = 0;
    for (const job of observed) {
      const shared = jobCells(job, ctx, CRIUS_ESTIMATOR, options);
      // A deadline a year away is met by every Cell: the same Cells, computed one by one.
      const alone = jobCells(
        { ...job, spec: { ...job.spec, deadline: now + 365 * 86_400 } },
        ctx,
        CRIUS_ESTIMATOR,
        { ...options, deadlines: true },
      );
      assert.deepEqual(shared.configs, alone.configs, job.spec.id);
      assert.deepEqual(shared.current, alone.current, job.spec.id);
      assert.equal(shared.reference, alone.reference);
      if (shared.current) holding++;
      if (calibrated.cellCalibration?.cells[job.spec.id]) own++;
    }
    assert.ok(holding > 0 && own > 0, 'both replacements are exercised');
  });

  test("a running job's held Cell, taken from its shape's Cells, is the Cell estimated for its type and count alone", () => {
    // Without calibration a Cell's rate is its raw estimate; the held Cell must be what `rawCell` gives its allocation
    // for a job whose model has no layer chain (the perf model's estimate on the best shape).
    const ctx = roundContext({
      now,
      cluster,
      jobs: states,
      state: { ...state, cellCalibration: undefined },
      policy,
      perf,
      memo: new RoundMemo(),
    });
    let compared = 0;
    for (const job of states) {
      // A layered model's own Cell (its stages) is estimated as held, not as the type and count's best.
      if (!job.allocation || (job.allocation.cell && CRIUS_ESTIMATOR.layered(job.spec.model))) continue;
      const { current } = jobCells(job, ctx, CRIUS_ESTIMATOR, options);
      const alone = rawCell(
        job,
        job.allocation.gpuType,
        allocationGpuCount(job.allocation),
        ctx,
        CRIUS_ESTIMATOR,
      );
      assert.equal(current?.rate, alone?.rate, job.spec.id);
      assert.deepEqual(current?.cell, alone?.cell, job.spec.id);
      compared++;
    }
    assert.ok(compared > 10, `${compared} running jobs compared`);
  });

  test('waiting jobs of one shape without ratios of their own share one list of Cells', () => {
    const ctx = roundContext({ now, cluster, jobs: states, state, policy, perf });
    const waiting = states.filter((j) => !j.allocation);
    const a = waiting[0]!;
    const twin: JobState = { ...a, spec: { ...a.spec, id: 'twin' } };
    const opts = { ...DEFAULT_CRIUS_OPTIONS, deadlines: false };
    assert.equal(
      jobCells(a, ctx, CRIUS_ESTIMATOR, opts).configs,
      jobCells(twin, ctx, CRIUS_ESTIMATOR, opts).configs,
    );
  });
});

describe('countsFor', () => {
  test("Crius's counts: half, requested and double with count scaling, the request alone without", () => {
    assert.deepEqual(countsFor(12, true), [6, 12, 24]);
    assert.deepEqual(countsFor(1, true), [1, 2]);
    assert.deepEqual(countsFor(12, false), [12]);
  });

  test('with one-host counts, also the largest power of two one host holds, only when half does not fit one', () => {
    assert.deepEqual(countsFor(12, true, 4), [4, 6, 12, 24]);
    assert.deepEqual(countsFor(24, true, 6), [4, 12, 24, 48]);
    assert.deepEqual(countsFor(16, true, 8), [8, 16, 32], 'half already fits one host');
    assert.deepEqual(countsFor(4, true, 8), [2, 4, 8]);
    assert.deepEqual(countsFor(12, false, 4), [12], 'no count scaling, no other count');
  });
});
