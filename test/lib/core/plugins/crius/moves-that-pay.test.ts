import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type JobState, remainingIterations } from '../../../../../lib/core/model/job.ts';
import type { CellConfig, JobCells } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { moveSeconds } from '../../../../../lib/core/plugins/crius/moves-that-pay.ts';
import {
  Budget,
  MoveCache,
  type SearchContext,
  scaleResource,
} from '../../../../../lib/core/plugins/crius/search.ts';
import { VirtualAllocation } from '../../../../../lib/core/plugins/crius/virtual.ts';
import { on, queued, running } from '../../../../support/fixtures.ts';

const config = (gpuType: string, gpus: number, rate: number): CellConfig => ({
  gpuType,
  gpus,
  cell: { gpuType, gpus, stageGpus: [gpus] },
  key: `${gpuType}|${gpus}|1`,
  rate,
  value: rate,
});

const cellsOf = (job: JobState, configs: CellConfig[], current?: CellConfig): JobCells => ({
  job,
  configs: [...configs].sort((a, b) => b.value - a.value),
  reference: 1,
  ...(current ? { current } : {}),
});

const RESTART = 30;

/**
 * 8 A GPUs: `long` (4 GPUs, 100,000 iterations left) and `short` (4 GPUs, `shortLeft` iterations left) at 1 it/s;
 * halving either costs it 10 % of its rate (0.9 it/s on 2). A new job asks for 2 GPUs.
 */
const scene = (shortLeft: number, withRule: boolean) => {
  const vc = new VirtualAllocation(new Map([['A', 8]]));
  const cells = new Map<string, JobCells>();
  const byId = new Map<string, JobState>();
  const add = (id: string, left: number, halfRate: number) => {
    const job = running({ id, gpus: 4, iterations: left }, on('A', [`h-${id}`, [0, 1, 2, 3]]));
    const now = config('A', 4, 1);
    cells.set(id, cellsOf(job, [now, config('A', 2, halfRate)], now));
    byId.set(id, job);
    vc.assign(id, now);
  };
  // Crius's rate trade prefers halving `long` (it loses less rate) to halving `short`.
  add('long', 100_000, 0.95);
  add('short', shortLeft, 0.9);
  const job = queued({ id: 'new', gpus: 2 });
  byId.set('new', job);
  cells.set('new', cellsOf(job, [config('A', 2, 1)]));
  const s: SearchContext = {
    vc,
    budget: new Budget(1e6),
    depth: 3,
    breadth: 12,
    cellsOf: (id) => cells.get(id),
    ...(withRule ? { seconds: moveSeconds(vc, byId, RESTART, { remainingOf: remainingIterations }) } : {}),
  };
  return { s, cells, vc, byId };
};

describe('admission moves that pay in seconds (tessera)', () => {
  test('a move costs the moved job its remaining work at the new rate minus the old, plus a restart if it runs', () => {
    const { vc, byId } = scene(1_000, false);
    const seconds = moveSeconds(vc, byId, RESTART, { remainingOf: remainingIterations });
    // 1,000 iterations at 0.9 instead of 1 it/s: 111.1 s more, plus the restart.
    assert.ok(
      Math.abs(
        seconds.cost('short', config('A', 4, 1), config('A', 2, 0.9)) - (RESTART + 1000 / 0.9 - 1000),
      ) < 1e-9,
    );
    // A job admitted earlier in the round has not started: no restart.
    assert.equal(seconds.cost('new', config('A', 2, 1), config('A', 2, 1)), 0);
  });

  test('the admitted job would wait until holders on its type finish and free enough GPUs', () => {
    const { vc, byId } = scene(1_000, false);
    const seconds = moveSeconds(vc, byId, RESTART, { remainingOf: remainingIterations });
    // 2 GPUs: the first holder to finish (short, 1,000 s) frees 4.
    assert.equal(seconds.wait(config('A', 2, 1)), 1_000);
    // 8 GPUs: both must finish.
    assert.equal(seconds.wait(config('A', 8, 1)), 100_000);
    // More than the type has: never.
    assert.equal(seconds.wait(config('A', 16, 1)), Number.POSITIVE_INFINITY);
    vc.release('long');
    assert.equal(seconds.wait(config('A', 2, 1)), 0);
  });

  test('Crius halves the long job (least rate lost); the rule halves the short one instead', () => {
    const crius = scene(1_000, false);
    assert.deepEqual(
      scaleResource(crius.cells.get('new')!, crius.s, new MoveCache())?.moves.map((m) => m.jobId),
      ['long'],
    );
    // Halving long costs it 5,293 s; the new job would wait 1,000 s; halving short costs 141 s.
    const tessera = scene(1_000, true);
    assert.deepEqual(
      scaleResource(tessera.cells.get('new')!, tessera.s, new MoveCache())?.moves.map((m) => m.jobId),
      ['short'],
    );
  });

  test('no move is worth more than the wait: the job waits instead', () => {
    // short has 100 iterations left: the new job would wait 100 s; halving short costs 41 s, so it still pays.
    const soon = scene(100, true);
    assert.deepEqual(
      scaleResource(soon.cells.get('new')!, soon.s, new MoveCache())?.moves.map((m) => m.jobId),
      ['short'],
    );
    // 20 iterations left: the wait (20 s) is less than any move's restart alone.
    const sooner = scene(20, true);
    assert.equal(scaleResource(sooner.cells.get('new')!, sooner.s, new MoveCache()), undefined);
  });
});
