import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { CellConfig } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { openPositions, positionsByTarget } from '../../../../../lib/core/plugins/crius/move-positions.ts';
import { Budget, type Move } from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { oneStageCell } from '../../../../support/fixtures.ts';

// The search's scan of candidate moves looks only where a move may fit (lib/core/plugins/crius/move-positions.ts) and
// spends the looks it skips with `Budget.spendEach`: both must give what the full scan gave.
const config = (gpuType: string, gpus: number): CellConfig => oneStageCell(gpuType, gpus);

describe('Budget.spendEach', () => {
  test('spends as a loop of spend() that stops at the first false', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 12 }),
        (limit, runs) => {
          const each = new Budget(limit);
          const loop = new Budget(limit);
          for (const n of runs) {
            let ok = true;
            for (let i = 0; i < n && ok; i++) ok = loop.spend();
            assert.equal(each.spendEach(n), ok);
            assert.equal(each.used, loop.used);
          }
        },
      ),
    );
  });
});

describe('openPositions', () => {
  test('every move that fits is listed, ascending, and every move left out goes to a type with no free GPU', () => {
    const types = ['A', 'B', 'C', 'D'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...types), fc.integer({ min: 1, max: 4 })), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 4, maxLength: 4 }),
        fc.constantFrom(...types),
        (targets, free, type) => {
          const vc = new VirtualAllocation(new Map(types.map((t, i) => [t, free[i]!])));
          const from = config(type, 8);
          const list: Move[] = targets.map(([t, g], i) => ({
            jobId: `j${i}`,
            from,
            to: config(t, g),
            freed: 1,
            loss: 0,
          }));
          const open = openPositions(positionsByTarget(list), type, vc);
          assert.deepEqual(
            [...open],
            [...open].sort((a, b) => a - b),
          );
          for (let i = 0; i < list.length; i++) {
            const to = list[i]!.to;
            const fits = to.gpuType === type || vc.free(to.gpuType) >= to.gpus;
            if (fits) assert.ok(open.includes(i), `move ${i} fits`);
            if (!open.includes(i)) assert.equal(vc.free(to.gpuType), 0);
          }
        },
      ),
    );
  });
});
