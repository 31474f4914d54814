import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { Budget, scaleUp } from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { queued } from '../../../../support/fixtures.ts';

const config = (gpus: number, value: number): CellConfig => ({
  gpuType: 'A',
  gpus,
  cell: { gpuType: 'A', gpus, stageGpus: [gpus] },
  key: `A|${gpus}|1`,
  rate: value,
  value,
});

/** Five 1-GPU jobs on 16 GPUs of one type, each 1.8× as fast on 2 GPUs; the pass at depth 2. */
const pass = (beyond?: (jobId: string) => boolean) => {
  const vc = new VirtualAllocation(new Map([['A', 16]]));
  const cells = new Map<string, JobCells>();
  for (let i = 0; i < 5; i++) {
    const id = `j${i}`;
    const one = config(1, 1);
    cells.set(id, { job: queued({ id }), configs: [config(2, 1.8), one], reference: 1, current: one });
    vc.assign(id, one);
  }
  return scaleUp(
    {
      vc,
      budget: new Budget(10_000),
      depth: 2,
      breadth: 12,
      cellsOf: (id) => cells.get(id),
      scaleUpPays: undefined,
      scaleUpBeyondDepth: beyond,
    },
    0.1,
    () => true,
  ).length;
};

describe('scale-up pass: moves `scaleUpBeyondDepth` names are not counted against the depth', () => {
  test("without it, Crius's depth bounds the moves", () => {
    assert.equal(pass(), 2);
  });

  test('moves of named jobs are free; the others still count', () => {
    assert.equal(
      pass(() => true),
      5,
    );
    // j0–j2 free, j3 and j4 counted: all five move, the depth reached with the last.
    assert.equal(
      pass((id) => id < 'j3'),
      5,
    );
    // Only j0 free: it and two counted moves.
    assert.equal(
      pass((id) => id === 'j0'),
      3,
    );
  });
});
