import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadCluster } from '../../../../../lib/clusters/load.ts';
import { allowedTypes } from '../../../../../lib/core/framework/estimates.ts';
import { RoundMemo } from '../../../../../lib/core/framework/round-memo.ts';
import {
  type CellConfig,
  type CellOptions,
  jobCells,
} from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { byValue } from '../../../../../lib/core/plugins/crius/own-cells.ts';
import { CRIUS_ESTIMATOR, DEFAULT_CRIUS_OPTIONS } from '../../../../../lib/core/plugins/crius/policies.ts';
import type { CellCalibrationState } from '../../../../../lib/core/plugins/crius/state.ts';
import { trialCells } from '../../../../../lib/core/plugins/tessera/trial-cells.ts';
import { loadDefaultPerfModel } from '../../../../../lib/data/perf.ts';
import { calibrationFixture } from '../crius/calibration-fixture.ts';

// Type trials read a running job's Cells at its count on the types it does not hold from its raw Cells, not from its
// own list: under any calibration (efficiencies missing or learned, the job's own ratio on its Cell or on another one)
// they must be exactly the Cells of its own list there, with the same rates and values.
const perf = loadDefaultPerfModel();
const cluster = loadCluster('crius-testbed-64');
const { running, contextOf, efficiencyOf } = calibrationFixture(cluster, 60, perf);
const tessera: CellOptions = { ...DEFAULT_CRIUS_OPTIONS, oneHostCount: true };

/** Efficiencies per model and type (some missing) and own ratios of some running jobs, on a Cell of any type. */
const calibrationOf = (
  factors: (number | undefined)[],
  ratios: (number | undefined)[],
  memo: RoundMemo,
): CellCalibrationState => {
  const efficiency = efficiencyOf(factors);
  const cells: Record<string, { cell: string; ratio: number }> = {};
  const cold = contextOf({ cells: {}, efficiency: {} }, memo);
  running.forEach((job, i) => {
    const ratio = ratios[i % ratios.length];
    const list = jobCells(job, cold, CRIUS_ESTIMATOR, tessera).configs;
    if (ratio === undefined || list.length === 0) return;
    cells[job.spec.id] = { cell: list[(i * 7) % list.length]!.key, ratio };
  });
  return { cells, efficiency };
};

const factor = fc.option(fc.constantFrom(0.5, 0.8, 1, 1.25, 2), { nil: undefined });
const summary = (c: CellConfig) => [c.gpuType, c.gpus, c.key, c.rate, c.value, c.cell];

const checkOptions = (options: CellOptions, label: string) => {
  const memo = new RoundMemo();
  let compared = 0;
  let ownThere = 0;
  fc.assert(
    fc.property(
      fc.array(factor, { minLength: 1, maxLength: 6 }),
      fc.array(factor, { minLength: 1, maxLength: 6 }),
      (factors, ratios) => {
        const calibration = calibrationOf(factors, ratios, memo);
        const ctx = contextOf(calibration, memo);
        for (const job of running) {
          const held = job.allocation!.gpuType;
          const others = allowedTypes(job.spec, ctx).filter((t) => t !== held);
          const own = jobCells(
            job,
            contextOf(calibration, new RoundMemo()),
            CRIUS_ESTIMATOR,
            options,
          ).configs;
          for (const gpus of new Set(own.map((c) => c.gpus))) {
            const want = own.filter((c) => c.gpus === gpus && others.includes(c.gpuType));
            const got = trialCells(job, ctx, CRIUS_ESTIMATOR, options, gpus, others);
            assert.deepEqual(
              [...got].sort(byValue).map(summary),
              want.map(summary),
              `${label} ${job.spec.id}`,
            );
            compared += want.length;
            if (want.some((c) => calibration.cells[job.spec.id]?.cell === c.key)) ownThere++;
          }
        }
      },
    ),
    { numRuns: 15, seed: 5 },
  );
  assert.ok(compared > 1000, `${compared} Cells compared`);
  assert.ok(ownThere > 20, `${ownThere} lists had the job's own ratio on a Cell of another type`);
};

describe('trialCells: a running job’s Cells on the types it does not hold', () => {
  test('property: tessera’s options (type scaling, no deadlines) — the own list’s Cells there', () => {
    checkOptions(tessera, 'tessera');
  });
  test('property: with deadlines — the own list filtered', () => {
    checkOptions({ ...tessera, deadlines: true }, 'deadlines');
  });
});
