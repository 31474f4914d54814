import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { benchCluster } from '../../../../../bench/round.ts';
import { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import { type CellConfig, jobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { byValue, indexOfTypeAndCount } from '../../../../../lib/core/plugins/crius/own-cells.ts';
import { CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import type { CellCalibrationState } from '../../../../../lib/core/plugins/crius/state.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';
import { calibrationFixture } from './calibration-fixture.ts';

// What Crius carries from round to round — each allocation's record (held-job.ts), each shape's calibrated Cells and
// its best value (shared-cells.ts), a job's own list made only when read (own-cells.ts) — must give, round after round
// of changing calibration, exactly the Cells a fresh memo computes; and a holding job's `shared` view must be its own
// list but for the held Cell, with `best` the value of its first Cell.
const perf = loadDefaultPerfModel();
const cluster = benchCluster(256);
const { states, running, contextOf, efficiencyOf } = calibrationFixture(cluster, 400, perf);
const options = { ...DEFAULT_CRIUS_OPTIONS, deadlines: false };

/** A calibration: an efficiency per model and type (some missing), and own ratios for some running jobs on their Cell. */
const calibrationOf = (
  factors: (number | undefined)[],
  ratios: (number | undefined)[],
): CellCalibrationState => {
  const efficiency = efficiencyOf(factors);
  const cells: Record<string, { cell: string; ratio: number }> = {};
  const cold = contextOf({ cells: {}, efficiency: {} }, new RoundMemo());
  running.forEach((job, i) => {
    const ratio = ratios[i % ratios.length];
    const coldCells = jobCells(job, cold, CRIUS_ESTIMATOR, options);
    const current = coldCells.current;
    if (ratio === undefined || !current) return;
    // Every third job's own ratio was observed on another of its Cells (it moved since): that Cell is its own too.
    const other = coldCells.configs.find((c) => c.gpuType !== current.gpuType || c.gpus !== current.gpus);
    cells[job.spec.id] = { cell: i % 3 === 0 && other ? other.key : current.key, ratio };
  });
  return { cells, efficiency };
};

const factor = fc.option(fc.constantFrom(0.5, 0.8, 1, 1.25, 2), { nil: undefined });

describe('Crius Cells carried across rounds', () => {
  test('property: a memo carried through rounds of changing calibration gives what a fresh memo gives', () => {
    const warm = new RoundMemo();
    let viewed = 0;
    let kept = 0;
    let elsewhere = 0;
    fc.assert(
      fc.property(
        fc.array(factor, { minLength: 1, maxLength: 6 }),
        fc.array(factor, { minLength: 1, maxLength: 6 }),
        (factors, ratios) => {
          const calibration = calibrationOf(factors, ratios);
          const carried = contextOf(calibration, warm);
          const fresh = contextOf(calibration, new RoundMemo());
          for (const job of states) {
            const cells = jobCells(job, carried, CRIUS_ESTIMATOR, options);
            const alone = jobCells(job, fresh, CRIUS_ESTIMATOR, options);
            assert.deepEqual(cells.current, alone.current, job.spec.id);
            assert.equal(cells.reference, alone.reference);
            const shared = cells.shared;
            if (cells.current && !shared) elsewhere++;
            if (shared && cells.current) {
              viewed++;
              assert.equal(shared.best, shared.configs[0]!.value, 'best is the first value');
              assert.equal(shared.size, shared.configs.length);
              const own: CellConfig[] = [...shared.configs];
              const at = indexOfTypeAndCount(own, cells.current);
              if (at >= 0) own[at] = cells.current;
              assert.deepEqual(
                own.sort(byValue),
                [...cells.configs],
                'own list is the shared one but the held Cell',
              );
            }
            assert.deepEqual(cells.configs, alone.configs, job.spec.id);
          }
          // The held Cell is the same object from round to round while its calibrated rate stays.
          const again = contextOf(calibration, warm);
          for (const job of running) {
            const before = jobCells(job, carried, CRIUS_ESTIMATOR, options).current;
            if (before && before === jobCells(job, again, CRIUS_ESTIMATOR, options).current) kept++;
          }
        },
      ),
      { numRuns: 25, seed: 9 },
    );
    assert.ok(viewed > 100, `${viewed} holding jobs had a shared view`);
    assert.ok(kept > 100, `${kept} held Cells were kept`);
    assert.ok(elsewhere > 100, `${elsewhere} holding jobs had an own ratio on another Cell`);
  });
});
