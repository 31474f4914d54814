import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { byValue } from '../../../../../lib/core/plugins/crius/own-cells.ts';
import { Budget, scaleUp } from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { extraGpusPay } from '../../../../../lib/core/plugins/tessera/extra-gpus-pay.ts';
import { cluster, oneStageCell, queued, stageContext } from '../../../../support/fixtures.ts';

// Rates as in Gavel's artifact_evaluation.trace on aws-mixed, seed 0: a 1-GPU transformer measured at 9.3 it/s on an
// A100; the estimate rates 1 and 2 V100s alike (11.06, 11.07).
const cell = (gpuType: string, gpus: number, rate: number): CellConfig =>
  oneStageCell(gpuType, gpus, rate, rate / 11.26);
const held = cell('A100', 1, 9.3);
const v1 = cell('V100', 1, 11.06);
const v2 = cell('V100', 2, 11.07);
const a2 = cell('A100', 2, 10.5);
const cellsOf = (...configs: CellConfig[]): JobCells => ({
  job: queued({ id: 'x', gpus: 1 }),
  configs: [...configs].sort(byValue),
  reference: 11.26,
  current: held,
});
const c = cluster([{ gpuType: 'A100', hosts: 1, gpusPerHost: 8 }]);
const ctx = stageContext(c, []);
const always = () => () => true;

describe('a scale-up to another type at a larger count: the extra GPUs must pay on their own', () => {
  test('refused when that type at the held count is rated within the margin of it', () => {
    const pays = extraGpusPay(always, 0.1)([], ctx);
    assert.equal(pays('x', held, v2, cellsOf(held, v1, v2)), false);
  });

  test('taken when it beats that type at the held count by more than the margin', () => {
    const pays = extraGpusPay(always, 0.1)([], ctx);
    const fast = cell('V100', 2, 13);
    assert.equal(pays('x', held, fast, cellsOf(held, v1, fast)), true);
  });

  test('a move of type alone, a growth on the held type, or a type without a Cell at the held count: the inner rule decides', () => {
    const pays = extraGpusPay(always, 0.1)([], ctx);
    assert.equal(pays('x', held, v1, cellsOf(held, v1, v2)), true);
    assert.equal(pays('x', held, a2, cellsOf(held, a2)), true);
    assert.equal(pays('x', held, v2, cellsOf(held, v2)), true);
    const never = extraGpusPay(() => () => false, 0.1)([], ctx);
    assert.equal(never('x', held, v1, cellsOf(held, v1, v2)), false);
  });

  test("through Crius's scale-up pass: the job moves to 1 V100, which the place stage does not refuse, not to 2", () => {
    const search = (rule?: (jobId: string, from: CellConfig, to: CellConfig, cells: JobCells) => boolean) => {
      const vc = new VirtualAllocation(
        new Map([
          ['A100', 1],
          ['V100', 4],
        ]),
      );
      vc.assign('x', held);
      const cells = cellsOf(held, v1, v2);
      return scaleUp(
        { vc, budget: new Budget(1000), depth: 3, breadth: 12, cellsOf: () => cells, scaleUpPays: rule },
        0.1,
        () => true,
      ).map((m) => m.to.key);
    };
    assert.deepEqual(search(), ['V100|2|1']);
    assert.deepEqual(search(extraGpusPay(always, 0.1)([], ctx)), ['V100|1|1']);
  });
});
