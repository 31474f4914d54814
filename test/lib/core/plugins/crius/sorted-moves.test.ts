import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import {
  Budget,
  type Move,
  MoveCache,
  release,
  type SearchContext,
  sortedMoves,
  sortedMovesByComparator,
} from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { oneStageCell, queued } from '../../../../support/fixtures.ts';

// Losses from a small set (ties are the point: most moves of a full cluster lose nothing), ∞ and, rarely, NaN.
const lossArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(0, 0.25, 0.5, 1, 1.5) },
  { weight: 3, arbitrary: fc.double({ min: 0, max: 10, noNaN: true }) },
  { weight: 1, arbitrary: fc.constant(Number.POSITIVE_INFINITY) },
  { weight: 1, arbitrary: fc.constant(Number.NaN) },
);

// Jobs (distinct ids, visited in any order) with their moves: several per job, as `candidateMoves` makes them.
const jobsArb = fc.uniqueArray(
  fc.record({
    id: fc.stringMatching(/^[a-c0-9-]{1,4}$/),
    moves: fc.array(fc.record({ freed: fc.integer({ min: 1, max: 4 }), loss: lossArb }), {
      minLength: 1,
      maxLength: 12,
    }),
  }),
  { selector: (j) => j.id, maxLength: 30 },
);

const build = (jobs: { id: string; moves: { freed: number; loss: number }[] }[]) => {
  const moves: Move[] = [];
  const jobAt: number[] = [];
  const ids: string[] = [];
  for (const job of jobs) {
    for (const m of job.moves) {
      const from = oneStageCell('a', 4, 1);
      const to = oneStageCell('b', 4 - m.freed || 1, 1);
      moves.push({ jobId: job.id, from, to, freed: m.freed, loss: m.loss });
      jobAt.push(ids.length);
    }
    ids.push(job.id);
  }
  return { moves, jobAt, ids };
};

test('sortedMoves gives the very orders the comparator sorts give (same move objects, same positions)', () => {
  fc.assert(
    fc.property(jobsArb, (jobs) => {
      const { moves, jobAt, ids } = build(jobs);
      const fast = sortedMoves(moves, jobAt, ids);
      const reference = sortedMovesByComparator(moves);
      assert.equal(fast.byEfficiency.length, moves.length);
      for (let i = 0; i < moves.length; i++) {
        assert.equal(fast.byEfficiency[i], reference.byEfficiency[i], `byEfficiency at ${i}`);
        assert.equal(fast.byFreed[i], reference.byFreed[i], `byFreed at ${i}`);
      }
    }),
    { numRuns: 500 },
  );
});

test('sortedMoves: of equal keys, the job whose id comes first, then the order made', () => {
  const { moves, jobAt, ids } = build([
    {
      id: 'b',
      moves: [
        { freed: 2, loss: 0 },
        { freed: 2, loss: 0 },
      ],
    },
    { id: 'a', moves: [{ freed: 2, loss: 0 }] },
  ]);
  const { byEfficiency, byFreed } = sortedMoves(moves, jobAt, ids);
  assert.deepEqual(byEfficiency, [moves[2], moves[0], moves[1]]);
  assert.deepEqual(byFreed, [moves[2], moves[0], moves[1]]);
});

// `release` with few feasible moves builds its pool without sorting every move: the same answer and the same budget
// spent as the scans of the sorted lists (`MoveCache(true)`), including budgets that run out mid-search.
const TYPES = ['A', 'B', 'C'] as const;
const scenarioArb = fc.record({
  capacity: fc.tuple(
    fc.integer({ min: 0, max: 16 }),
    fc.integer({ min: 0, max: 16 }),
    fc.integer({ min: 0, max: 16 }),
  ),
  jobs: fc.array(
    fc.record({
      holds: fc.record({ type: fc.constantFrom(...TYPES), gpus: fc.integer({ min: 1, max: 8 }) }),
      value: fc.constantFrom(0.5, 1, 1.5, 2),
      configs: fc.array(
        fc.record({
          type: fc.constantFrom(...TYPES),
          gpus: fc.integer({ min: 1, max: 8 }),
          value: fc.oneof(fc.constantFrom(0, 0.5, 1, 1.5, 2), fc.double({ min: 0, max: 3, noNaN: true })),
        }),
        { maxLength: 8 },
      ),
    }),
    { maxLength: 24 },
  ),
  calls: fc.array(
    fc.record({
      type: fc.constantFrom(...TYPES),
      need: fc.integer({ min: 1, max: 16 }),
      maxLoss: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.double({ min: 0, max: 4, noNaN: true })),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  budget: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(20_000)),
  depth: fc.integer({ min: 1, max: 3 }),
  breadth: fc.integer({ min: 1, max: 12 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

const runReleases = (sc: Scenario, sortAlways: boolean) => {
  const vc = new VirtualAllocation(new Map(TYPES.map((t, i) => [t, sc.capacity[i]!])));
  const cells = new Map<string, JobCells>();
  sc.jobs.forEach((j, k) => {
    const id = `j${(k * 7) % 11}-${k}`;
    const now = oneStageCell(j.holds.type, j.holds.gpus, j.value);
    const configs = [now, ...j.configs.map((c) => oneStageCell(c.type, c.gpus, c.value))].sort(
      (a, b) => b.value - a.value,
    );
    cells.set(id, { job: queued({ id, gpus: j.holds.gpus }), configs, reference: 1, current: now });
    if (vc.fits(now)) vc.assign(id, now);
  });
  const s: SearchContext = {
    vc,
    budget: new Budget(sc.budget),
    depth: sc.depth,
    breadth: sc.breadth,
    cellsOf: (id) => cells.get(id),
  };
  const cache = new MoveCache(sortAlways);
  return sc.calls.map((c) => {
    const found = release(c.type, c.need, c.maxLoss, s, cache);
    return {
      moves: found?.moves.map((m) => `${m.jobId}>${m.to.gpuType}:${m.to.gpus}`),
      loss: found?.loss,
      used: s.budget.used,
    };
  });
};

test('release: the few-feasible pool gives what the sorted scans give, budget spent included', () => {
  fc.assert(
    fc.property(scenarioArb, (sc) => {
      assert.deepEqual(runReleases(sc, false), runReleases(sc, true));
    }),
    { numRuns: 1000 },
  );
});
