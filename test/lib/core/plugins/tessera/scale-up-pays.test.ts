import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { roundContext, scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import { initialSchedulerState } from '../../../../../lib/core/model/state.ts';
import type { CellConfig } from '../../../../../lib/core/plugins/crius/job-cells.ts';
import { scaleUpPays } from '../../../../../lib/core/plugins/tessera/scale-up-pays.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, on, oneStageCell, queued, running } from '../../../../support/fixtures.ts';

const config = (gpuType: string, gpus: number, rate: number): CellConfig => oneStageCell(gpuType, gpus, rate);

// One 4-GPU machine of each type; the fast type is 6 % faster (below Crius's 10 % scale-up gain).
const twoTypes = cluster([
  { gpuType: 'slow', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'fast', hosts: 1, gpusPerHost: 4 },
]);
const perf = linearPerf({ slow: 1, fast: 1.06 });
const [slowHost] = twoTypes.hosts.filter((h) => h.gpuType === 'slow').map((h) => h.id) as [string];
const onSlow = (id: string, left: number): JobState =>
  running({ id, gpus: 4, iterations: left + 100, packable: false }, on('slow', [slowHost, [0, 1, 2, 3]]), {
    progress: 100,
  });

describe('tessera scales a running job up when the move saves more than a restart', () => {
  test('the saving on the remaining iterations against the restart decides, not a fixed relative gain', () => {
    const jobs = [onSlow('long', 100_000), onSlow('short', 1_000), queued({ id: 'new', iterations: 1_000 })];
    const ctx = roundContext({
      now: 0,
      cluster: twoTypes,
      jobs,
      state: initialSchedulerState(),
      policy: getPolicy('tessera'),
      perf,
    });
    const pays = scaleUpPays(jobs, ctx);
    // 100,000 iterations at 4 vs 4.24 it/s: 1,415 s saved, more than a 30 s restart.
    assert.equal(pays('long', config('slow', 4, 4), config('fast', 4, 4.24)), true);
    // 1,000 iterations: 14 s saved, less than the restart.
    assert.equal(pays('short', config('slow', 4, 4), config('fast', 4, 4.24)), false);
    // A job admitted this round has not started: a larger Cell costs it no restart, so 14 s saved pay.
    assert.equal(pays('new', config('slow', 4, 4), config('fast', 4, 4.24)), true);
    // Never a slower Cell.
    assert.equal(pays('long', config('slow', 4, 4), config('fast', 2, 2.12)), false);
  });

  test('on the same type the job’s own deviation from its model carries to the Cell it would move to', () => {
    // x runs 10 % below its model's learned efficiency on the Cell it holds; both types' efficiency is 1.
    const x = onSlow('x', 100_000);
    const ctx = roundContext({
      now: 0,
      cluster: twoTypes,
      jobs: [x],
      state: {
        ...initialSchedulerState(),
        cellCalibration: {
          cells: { x: { cell: 'slow|4|1', ratio: 0.9 } },
          efficiency: { 'resnet50|slow': 1, 'resnet50|fast': 1 },
        },
      },
      policy: getPolicy('tessera'),
      perf,
    });
    const pays = scaleUpPays([x], ctx);
    // Crius rates the held Cell at the job's own ratio (raw 4 × 0.9) and 8 GPUs at the model's (raw 3.9 × 1): 8 %
    // faster only because the two are calibrated differently; compared alike (3.9 × 0.9) 8 GPUs are slower.
    assert.equal(pays('x', config('slow', 4, 3.6), config('slow', 8, 3.9)), false);
    // 8 GPUs really faster (raw 4.4: 4.4 × 0.9 = 3.96) still pay.
    assert.equal(pays('x', config('slow', 4, 3.6), config('slow', 8, 4.4)), true);
    // On another type the model's efficiency there is the estimate (the deviation may be the type's): 4 > 3.6 pays.
    assert.equal(pays('x', config('slow', 4, 3.6), config('fast', 4, 4)), true);
  });

  test('in a round with nobody waiting, a job near its end stays where Crius would move it', () => {
    // The fast type 15 % faster: above the margin, so both move a long job; near its end the restart costs more.
    const perf15 = linearPerf({ slow: 1, fast: 1.15 });
    const round = (policy: string, left: number) =>
      scheduleRound({
        now: 0,
        cluster: twoTypes,
        jobs: [onSlow('x', left)],
        state: initialSchedulerState(),
        policy: getPolicy(policy),
        perf: perf15,
      }).plan.get('x')?.gpuType;
    assert.equal(round('tessera', 100_000), 'fast');
    assert.equal(round('crius', 100_000), 'fast');
    assert.equal(round('crius', 300), 'fast');
    assert.equal(round('tessera', 300), 'slow');
  });

  test('below the gain margin nobody moves, however long the job (the estimate is not that precise)', () => {
    const round = (policy: string) =>
      scheduleRound({
        now: 0,
        cluster: twoTypes,
        jobs: [onSlow('x', 1_000_000)],
        state: initialSchedulerState(),
        policy: getPolicy(policy),
        perf,
      }).plan.get('x')?.gpuType;
    assert.equal(round('tessera'), 'slow');
    assert.equal(round('crius'), 'slow');
  });
});
