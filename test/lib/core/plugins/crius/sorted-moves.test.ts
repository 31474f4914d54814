import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  type Move,
  sortedMoves,
  sortedMovesByComparator,
} from '../../../../../lib/core/plugins/crius/search.ts';
import { oneStageCell } from '../../../../support/fixtures.ts';

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
