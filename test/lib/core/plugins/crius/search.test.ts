import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import {
  admissionConfigs,
  applyChoice,
  Budget,
  MoveCache,
  type SearchContext,
  scaleResource,
  scaleUp,
} from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { oneStageCell, queued } from '../../../../support/fixtures.ts';

const config = (gpuType: string, gpus: number, value: number): CellConfig =>
  oneStageCell(gpuType, gpus, value);

const cellsOf = (job: JobState, configs: CellConfig[], current?: CellConfig): JobCells => ({
  job,
  configs: [...configs].sort((a, b) => b.value - a.value),
  reference: 1,
  ...(current ? { current } : {}),
});

const context = (
  vc: VirtualAllocation,
  cells: Map<string, JobCells>,
  depth = 3,
  budget = 1e6,
): SearchContext => ({
  vc,
  budget: new Budget(budget),
  depth,
  breadth: 12,
  cellsOf: (id) => cells.get(id),
});

describe('Cell-based scheduling search (Algorithm 1)', () => {
  test('a job that fits is admitted with its best Cell up to its request, without moves', () => {
    const vc = new VirtualAllocation(new Map([['A', 8]]));
    const job = queued({ id: 'new', gpus: 4 });
    const cells = cellsOf(job, [config('A', 2, 0.6), config('A', 4, 1), config('A', 8, 1.7)]);
    assert.deepEqual(
      admissionConfigs(cells).map((c) => c.gpus),
      [4, 2],
    );
    const choice = scaleResource(cells, context(vc, new Map([['new', cells]])), new MoveCache());
    assert.equal(choice?.admit.gpus, 4);
    assert.deepEqual(choice?.moves, []);
  });

  test('a full type: the cheapest scaling moves (≤ depth) make room', () => {
    const vc = new VirtualAllocation(
      new Map([
        ['A', 8],
        ['B', 2],
      ]),
    );
    const cells = new Map<string, JobCells>();
    // r1 scales well (halving costs 0.45), r2 badly (halving costs 0.1): r2 is downscaled.
    const r1 = queued({ id: 'r1', gpus: 4 });
    const r2 = queued({ id: 'r2', gpus: 4 });
    const r1Now = config('A', 4, 1);
    const r2Now = config('A', 4, 1);
    cells.set('r1', cellsOf(r1, [r1Now, config('A', 2, 0.55)], r1Now));
    cells.set('r2', cellsOf(r2, [r2Now, config('A', 2, 0.9)], r2Now));
    vc.assign('r1', r1Now);
    vc.assign('r2', r2Now);
    const job = queued({ id: 'new', gpus: 2 });
    cells.set('new', cellsOf(job, [config('A', 2, 1), config('A', 1, 0.6)]));
    const s = context(vc, cells);
    const choice = scaleResource(cells.get('new')!, s, new MoveCache());
    assert.ok(choice);
    assert.equal(choice.admit.gpus, 2);
    assert.deepEqual(
      choice.moves.map((m) => [m.jobId, m.to.gpus]),
      [['r2', 2]],
    );
    applyChoice(choice, vc);
    assert.equal(vc.free('A'), 0);
    assert.equal(vc.get('r2')?.gpus, 2);
  });

  test('moving a job to another type with room frees its GPUs', () => {
    const vc = new VirtualAllocation(
      new Map([
        ['A', 4],
        ['B', 4],
      ]),
    );
    const cells = new Map<string, JobCells>();
    const r = queued({ id: 'r', gpus: 4 });
    const rNow = config('A', 4, 1);
    cells.set('r', cellsOf(r, [rNow, config('B', 4, 0.8)], rNow));
    vc.assign('r', rNow);
    const job = queued({ id: 'new', gpus: 4 });
    cells.set('new', cellsOf(job, [config('A', 4, 1)]));
    const choice = scaleResource(cells.get('new')!, context(vc, cells), new MoveCache());
    assert.deepEqual(
      choice?.moves.map((m) => [m.jobId, m.to.gpuType]),
      [['r', 'B']],
    );
  });

  test('depth bounds the moves per choice', () => {
    const build = () => {
      const vc = new VirtualAllocation(new Map([['A', 8]]));
      const cells = new Map<string, JobCells>();
      for (let i = 0; i < 4; i++) {
        const now = config('A', 2, 1);
        cells.set(`r${i}`, cellsOf(queued({ id: `r${i}`, gpus: 2 }), [now, config('A', 1, 0.7)], now));
        vc.assign(`r${i}`, now);
      }
      cells.set('new', cellsOf(queued({ id: 'new', gpus: 4 }), [config('A', 4, 1), config('A', 2, 0.6)]));
      return { vc, cells };
    };
    // Freeing 4 GPUs takes four halvings; freeing 2 (the N/2 Cell) takes two.
    const deep = build();
    const four = scaleResource(deep.cells.get('new')!, context(deep.vc, deep.cells, 4), new MoveCache());
    assert.equal(four?.moves.length, 2);
    assert.equal(four?.admit.gpus, 2);
    const shallow = build();
    assert.equal(
      scaleResource(shallow.cells.get('new')!, context(shallow.vc, shallow.cells, 1), new MoveCache()),
      undefined,
    );
  });

  test('the scale-up pass gives idle GPUs to the job that gains most, within capacity', () => {
    const vc = new VirtualAllocation(new Map([['A', 6]]));
    const cells = new Map<string, JobCells>();
    const a = config('A', 2, 1);
    const b = config('A', 2, 1);
    cells.set('a', cellsOf(queued({ id: 'a', gpus: 2 }), [a, config('A', 4, 1.9)], a));
    cells.set('b', cellsOf(queued({ id: 'b', gpus: 2 }), [b, config('A', 4, 1.3)], b));
    vc.assign('a', a);
    vc.assign('b', b);
    const moves = scaleUp(context(vc, cells, 3), 0.1, () => true);
    assert.deepEqual(
      moves.map((m) => [m.jobId, m.to.gpus]),
      [['a', 4]],
    );
    assert.equal(vc.free('A'), 0);
  });

  test('property: choices never exceed any type’s capacity', () => {
    const types = ['A', 'B', 'C'];
    fc.assert(
      fc.property(
        fc.record({
          capacity: fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 3, maxLength: 3 }),
          jobs: fc.array(
            fc.record({
              gpus: fc.constantFrom(1, 2, 4, 8),
              values: fc.array(fc.double({ min: 0.1, max: 2, noNaN: true }), { minLength: 9, maxLength: 9 }),
            }),
            { minLength: 1, maxLength: 25 },
          ),
          depth: fc.integer({ min: 0, max: 4 }),
          budget: fc.integer({ min: 1, max: 500 }),
        }),
        ({ capacity, jobs, depth, budget }) => {
          const cap = new Map(types.map((t, i) => [t, capacity[i]!]));
          const vc = new VirtualAllocation(cap);
          const cells = new Map<string, JobCells>();
          const s = context(vc, cells, depth, budget);
          const cache = new MoveCache();
          for (const [i, j] of jobs.entries()) {
            const id = `j${i}`;
            const counts = [Math.max(1, j.gpus / 2), j.gpus, 2 * j.gpus];
            const configs = types.flatMap((t, ti) =>
              counts.map((g, ci) => config(t, g, j.values[ti * 3 + ci]!)),
            );
            cells.set(id, cellsOf(queued({ id, gpus: j.gpus }), configs));
            const choice = scaleResource(cells.get(id)!, s, cache);
            if (choice) {
              applyChoice(choice, vc);
              // The admitted job now holds `admit`: later searches may move it.
              cells.set(id, cellsOf(queued({ id, gpus: j.gpus }), configs, choice.admit));
            }
            for (const t of types) if (vc.free(t) < 0) return false;
          }
          scaleUp(s, 0.05, () => true);
          const used = new Map<string, number>();
          for (const [, c] of vc.entries()) used.set(c.gpuType, (used.get(c.gpuType) ?? 0) + c.gpus);
          return types.every(
            (t) => (used.get(t) ?? 0) <= cap.get(t)! && vc.free(t) === cap.get(t)! - (used.get(t) ?? 0),
          );
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
