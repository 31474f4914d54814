import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import type { TakeView } from '../../../../../lib/core/plugins/crius/take.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { estimatedRemainingIterations } from '../../../../../lib/core/plugins/tessera/order.ts';
import { TakeTestMemo } from '../../../../../lib/core/plugins/tessera/take-pays-memo.ts';
import { oneStageCell, queued, running } from '../../../../support/fixtures.ts';

// TakeTestMemo (lib/core/plugins/tessera/take-pays-memo.ts) against the sums and sorts it replaces, recomputed at every
// question, while the virtual allocation and the jobs waiting ahead change as in Crius's allocation pass.
const config = oneStageCell;

const cellsOf = (job: JobState): JobCells => ({
  job,
  configs: [config('a', job.spec.gpus), config('b', job.spec.gpus), config('a', job.spec.gpus / 2)],
  reference: 1,
});

const holders = [1, 2, 3, 4, 5, 6].map((i) =>
  running({ id: `h${i}`, gpus: 2, iterations: 1_000 * ((i * 7) % 5) + 100 }, { gpuType: 'a', slices: [] }),
);
const byId = new Map(holders.map((j) => [j.spec.id, j]));

/** What take-pays computed at every question before the memo. */
const freshAhead = (view: TakeView): Map<string, number> => {
  const sum = new Map<string, number>();
  for (const job of view.waitingAhead) {
    const least = new Map<string, number>();
    for (const c of view.cellsOf(job).configs.filter((c) => c.gpus <= job.spec.gpus))
      least.set(c.gpuType, Math.min(least.get(c.gpuType) ?? Number.POSITIVE_INFINITY, c.gpus));
    for (const [type, gpus] of least) sum.set(type, (sum.get(type) ?? 0) + gpus);
  }
  return sum;
};
const freshEnds = (type: string, view: TakeView) => {
  const ends: { at: number; gpus: number }[] = [];
  for (const id of view.vc.jobsOn(type)) {
    const held = view.vc.get(id)!;
    ends.push({ at: estimatedRemainingIterations(view.job(id)!) / held.rate, gpus: held.gpus });
  }
  return ends.sort((a, b) => a.at - b.at);
};

/** A pass's view of the holders above: `vc` and the jobs waiting ahead. */
const viewOf = (vc: VirtualAllocation, waitingAhead: readonly JobState[]): TakeView => ({
  vc,
  job: (id) => byId.get(id),
  cellsOf,
  waitingAhead,
});

/** The memo gives what take-pays recomputed: the sums ahead, and the holders' ends on each of `types`. */
const assertAsFresh = (memo: TakeTestMemo, view: TakeView, types: readonly string[]) => {
  assert.deepEqual(memo.gpusAhead(view), freshAhead(view));
  for (const type of types) assert.deepEqual(memo.holderEnds(type, view), freshEnds(type, view));
};

describe('the take test’s memo of one allocation pass', () => {
  test('gives the recomputed sums and ends as jobs pend and holders come and go', () => {
    const vc = new VirtualAllocation(
      new Map([
        ['a', 16],
        ['b', 8],
      ]),
    );
    const pending: JobState[] = [];
    const view = viewOf(vc, pending);
    const memo = new TakeTestMemo();
    const check = () => assertAsFresh(memo, view, ['a', 'b']);
    check();
    for (const [i, h] of holders.entries()) {
      vc.assign(h.spec.id, config('a', 2, 1 + i / 10), i);
      check();
      pending.push(queued({ id: `w${i}`, gpus: 2 * (i + 1) }));
      check();
    }
    // A holder moves to another type and one leaves: both types' ends change.
    vc.assign('h2', config('b', 4, 2));
    check();
    vc.release('h5');
    check();
  });

  test('starts over for another pass’s list or virtual allocation', () => {
    const memo = new TakeTestMemo();
    const one = new VirtualAllocation(new Map([['a', 8]]));
    one.assign('h1', config('a', 2), 0);
    assertAsFresh(memo, viewOf(one, [queued({ gpus: 4 })]), ['a']);
    const other = new VirtualAllocation(new Map([['a', 8]]));
    other.assign('h3', config('a', 2), 0);
    assertAsFresh(memo, viewOf(other, [queued({ gpus: 2 })]), ['a']);
  });
});
