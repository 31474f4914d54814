import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { CellConfig, JobCells, SharedCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { byValue } from '../../../../../lib/core/plugins/crius/own-cells.ts';
import {
  Budget,
  type Move,
  type SearchContext,
  scaleUp,
} from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { oneStageCell, queued } from '../../../../support/fixtures.ts';

// The scale-up pass reads a holding job's shape's shared Cells (`JobCells.shared`) instead of the job's own list, skips
// a job whose shape's best Cell gains too little, and stops scanning a list at the first Cell that gains too little.
// After its first scan, the pass visits only the holders that may move (a holder whose shape's best Cell gains too
// little stays so for the whole pass) and spends for the others what a scan spends on them.
// Specification: the moves are those of a plain scan of every job's own list (the pass as Crius's Algorithm 1 states
// it, below), on random jobs, Cells, budgets and capacities.

/** The scale-up pass without any shortcut: every Cell of every job, from its own list. */
const referenceScaleUp = (s: SearchContext, minGain: number): Move[] => {
  const done: Move[] = [];
  while (done.length < s.depth && !s.budget.exhausted) {
    let best: Move | undefined;
    let bestGain = 0;
    for (const [jobId, from] of s.vc.entries()) {
      if (done.some((m) => m.jobId === jobId)) continue;
      const cells = s.cellsOf(jobId);
      if (!cells) continue;
      s.budget.spend(cells.configs.length);
      for (const to of cells.configs) {
        const gain = to.value - from.value;
        if (gain <= minGain * from.value || gain <= bestGain) continue;
        const extra = to.gpuType === from.gpuType ? to.gpus - from.gpus : to.gpus;
        if (extra > s.vc.free(to.gpuType)) continue;
        best = { jobId, from, to, freed: 0, loss: -gain };
        bestGain = gain;
      }
    }
    if (!best) break;
    s.vc.assign(best.jobId, best.to);
    done.push(best);
  }
  return done;
};

const TYPES = ['A', 'B', 'C'];
const config = (gpuType: string, gpus: number, value: number): CellConfig =>
  oneStageCell(gpuType, gpus, value);

interface Drawn {
  readonly gpus: number;
  /** Value of each type × count (the shape's shared Cells). */
  readonly values: number[];
  /** Which Cell the job holds, and its own value there (its own ratio). */
  readonly held: number;
  readonly ownValue: number;
  /** Whether the job is given the shared view (a job with an own ratio elsewhere is not). */
  readonly viewed: boolean;
}

/** Two searches on the same jobs: one whose holders expose their shape's shared Cells, one with own lists only. */
const instance = (capacity: number[], jobs: readonly Drawn[], depth: number, budget: number) => {
  const make = (withViews: boolean): SearchContext => {
    const vc = new VirtualAllocation(new Map(TYPES.map((t, i) => [t, capacity[i]!])));
    const cells = new Map<string, JobCells>();
    for (const [i, j] of jobs.entries()) {
      const id = `j${i}`;
      // One Cell per type and count, as `countsFor` gives them ({N/2, N, 2N}, N/2 only when at least one GPU).
      const counts = j.gpus >= 2 ? [j.gpus / 2, j.gpus, 2 * j.gpus] : [j.gpus, 2 * j.gpus];
      const shared = TYPES.flatMap((t, ti) => counts.map((g, ci) => config(t, g, j.values[ti * 3 + ci]!)));
      shared.sort(byValue);
      const heldShared = shared[j.held % shared.length]!;
      const current = config(heldShared.gpuType, heldShared.gpus, j.ownValue);
      const own = shared.map((c) => (c === heldShared ? current : c)).sort(byValue);
      const view: SharedCells = { size: shared.length, best: shared[0]!.value, configs: shared };
      cells.set(id, {
        job: queued({ id, gpus: j.gpus }),
        configs: own,
        reference: 1,
        current,
        ...(withViews && j.viewed ? { shared: view } : {}),
      });
      if (vc.fits(current)) vc.assign(id, current);
    }
    return { vc, budget: new Budget(budget), depth, breadth: 12, cellsOf: (id) => cells.get(id) };
  };
  return { fast: make(true), plain: make(false) };
};

const value = fc.double({ min: 0.1, max: 2, noNaN: true });
const drawn = fc.record({
  gpus: fc.constantFrom(1, 2, 4, 8),
  // Few distinct values: ties between Cells and with the held one are common.
  values: fc.array(fc.oneof(value, fc.constantFrom(0.5, 1, 1.5)), { minLength: 9, maxLength: 9 }),
  held: fc.nat(8),
  ownValue: fc.oneof(value, fc.constantFrom(0.5, 1, 1.5)),
  viewed: fc.boolean(),
});

describe('scale-up pass (Crius Algorithm 1, CellBasedSched() without a target)', () => {
  test('property: the shared-view and early-stop pass moves exactly as a scan of every own list', () => {
    let moved = 0;
    let again = 0;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 3, maxLength: 3 }),
        fc.array(drawn, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 400 }),
        fc.constantFrom(0, 0.05, 0.1),
        (capacity, jobs, depth, budget, minGain) => {
          const { fast, plain } = instance(capacity, jobs, depth, budget);
          const got = scaleUp(fast, minGain, () => true);
          const want = referenceScaleUp(plain, minGain);
          if (want.length > 0) moved++;
          // A second scan ran after a move (with the holders the first one set aside).
          if (want.length > 0 && depth > 1) again++;
          assert.deepEqual(
            got.map((m) => [m.jobId, m.to.gpuType, m.to.gpus, m.to.value]),
            want.map((m) => [m.jobId, m.to.gpuType, m.to.gpus, m.to.value]),
          );
          assert.equal(fast.budget.used, plain.budget.used, 'the same budget spent');
          assert.deepEqual(
            [...fast.vc.entries()].map(([id, c]) => [id, c.gpuType, c.gpus]),
            [...[...plain.vc.entries()].map(([id, c]) => [id, c.gpuType, c.gpus])],
          );
        },
      ),
      { numRuns: 500, seed: 11 },
    );
    assert.ok(moved > 100, `${moved} of 500 runs scale a job up`);
    assert.ok(again > 50, `${again} of 500 runs scan again after a move`);
  });

  test('a job whose shape offers nothing better than its Cell by the minimum gain is not moved', () => {
    const { fast } = instance(
      [16, 0, 0],
      [{ gpus: 2, values: [0.5, 1, 1.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1], held: 1, ownValue: 1, viewed: true }],
      3,
      100,
    );
    assert.deepEqual(
      scaleUp(fast, 0.1, () => true),
      [],
    );
  });
});
