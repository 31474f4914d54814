import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scheduleRound } from '../../../../../lib/core/framework/round.ts';
import type { Cluster } from '../../../../../lib/core/model/cluster.ts';
import type { JobState } from '../../../../../lib/core/model/job.ts';
import type { Allocation } from '../../../../../lib/core/model/plan.ts';
import { initialSchedulerState, type SchedulerState } from '../../../../../lib/core/model/state.ts';
import type { TypeTrial } from '../../../../../lib/core/plugins/tessera/state.ts';
import { getPolicy } from '../../../../../lib/core/policies.ts';
import { cluster, linearPerf, queued, running } from '../../../../support/fixtures.ts';

// One 4-GPU machine of each type. The estimate rates `fast` 6 % above `slow`: below Crius's 10 % margin, so Crius
// alone never moves a job between them; within the model's error, so which is really faster is unknown.
const types = cluster([
  { gpuType: 'slow', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'fast', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'mid', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'busy', hosts: 1, gpusPerHost: 1 },
]);
const perf = linearPerf({ slow: 1, fast: 1.06, mid: 1.06, busy: 1 });
const hostOf = (c: Cluster, type: string): string => c.hosts.find((h) => h.gpuType === type)!.id;

/** GPUs of `type`'s machine, carrying the Crius Cell as tessera's allocations do. */
const gpusOf = (type: string, gpus: number[]): Allocation => ({
  gpuType: type,
  slices: [{ hostId: hostOf(types, type), gpus }],
  cell: { gpuType: type, gpus: gpus.length, stageGpus: [gpus.length] },
});

/**
 * A job on the whole 4-GPU machine of `type` (twice that fits no type: no scale-up) with `left` iterations to go,
 * measured at `rate` iterations per second (the estimate: 4 on slow, 4.24 on fast and mid).
 */
const onType = (id: string, type: string, left: number, rate: number, gpuTypes?: string[]): JobState =>
  running(
    { id, gpus: 4, iterations: left + 100, packable: false, ...(gpuTypes ? { gpuTypes } : {}) },
    gpusOf(type, [0, 1, 2, 3]),
    { progress: 100, measuredThroughput: rate },
  );

/** Only `slow` is known for resnet50 (x's own ratio observed there): every other type is untried. */
const knowsSlow = (
  extra: Record<string, number> = {},
  trials?: Record<string, TypeTrial>,
): SchedulerState => ({
  ...initialSchedulerState(),
  cellCalibration: {
    cells: { x: { cell: 'slow|4|1', ratio: 1 } },
    efficiency: { 'resnet50|slow': 1, ...extra },
  },
  ...(trials ? { typeTrials: { jobs: trials } } : {}),
});

const round = (jobs: JobState[], state: SchedulerState) =>
  scheduleRound({ now: 0, cluster: types, jobs, state, policy: getPolicy('tessera'), perf });

describe('tessera tries a long job on a GPU type its model never ran on', () => {
  test('a long job within the model’s error of an untried type tries it, and the state remembers where it was', () => {
    // 1,000,000 iterations at 4 it/s: 250,000 s left; fast is estimated 6 % faster.
    const out = round([onType('x', 'slow', 1_000_000, 4, ['slow', 'fast'])], knowsSlow());
    assert.equal(out.plan.get('x')?.gpuType, 'fast');
    assert.deepEqual(out.state.typeTrials?.jobs.x, {
      to: 'fast',
      from: { gpuType: 'slow', gpus: 4, cell: { gpuType: 'slow', gpus: 4, stageGpus: [4] }, rate: 4 },
    });
    // Its verdict is due at the next round, where it is measured there.
    assert.equal(out.state.typeTrials?.judgeAt, 60);
    // Crius alone keeps it (6 % is below its margin).
    const crius = scheduleRound({
      now: 0,
      cluster: types,
      jobs: [onType('x', 'slow', 1_000_000, 4, ['slow', 'fast'])],
      state: knowsSlow(),
      policy: getPolicy('crius'),
      perf,
    });
    assert.equal(crius.plan.get('x')?.gpuType, 'slow');
  });

  test('only where the worst case (two restarts and a round) is at most 1 % of the remaining time', () => {
    // 5,000 s left: the worst case, 120 s, is 2.4 % of it (the expected saving alone, ~330 s, would pay).
    const out = round([onType('x', 'slow', 20_000, 4, ['slow', 'fast'])], knowsSlow());
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
    assert.equal(out.state.typeTrials, undefined);
  });

  test('not while some job waits', () => {
    // w may only run on `busy`'s one GPU, which b holds; b comes before it (priority), so w waits.
    const b = running(
      { id: 'b', gpus: 1, iterations: 1_000, priority: 1, gpuTypes: ['busy'] },
      gpusOf('busy', [0]),
    );
    const w = queued({ id: 'w', gpus: 1, iterations: 1_000, priority: -1, gpuTypes: ['busy'] });
    const out = round([onType('x', 'slow', 1_000_000, 4, ['slow', 'fast']), b, w], knowsSlow());
    assert.equal(out.plan.has('w'), false);
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
  });

  test('not where the estimate is more than twice the model’s error below the measured rate', () => {
    // σ ≈ 0.09 (the prior 0.1, one observation at 0); x = ln(4.24 ÷ 5.444) ≈ −0.25 < −2σ. A job this long would
    // still expect to gain more than a trial costs under a normal tail.
    const out = round([onType('x', 'slow', 1_000_000_000, 5.444, ['slow', 'fast'])], knowsSlow());
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
  });

  test('not when the expected saving is below the expected cost', () => {
    // 20,000 s left (worst case 0.6 %), x = ln(4.24 ÷ 4.9264) = −0.15: expected saving ~35 s, cost ~115 s.
    const out = round([onType('x', 'slow', 98_528, 4.9264, ['slow', 'fast'])], knowsSlow());
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
  });
});

describe('a job on trial, once measured there', () => {
  const from = { gpuType: 'slow', gpus: 4, cell: { gpuType: 'slow', gpus: 4, stageGpus: [4] }, rate: 4.8 };
  const trial: TypeTrial = { to: 'fast', from };

  test('slower than before: goes back to its old Cell, and the trial ends', () => {
    const x = onType('x', 'fast', 1_000_000, 4, ['slow', 'fast']);
    const out = round([x], knowsSlow({}, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
    assert.equal(out.state.typeTrials, undefined);
  });

  test('slower than before with another untried type worth a trial: goes on to it (one restart, not two)', () => {
    const x = onType('x', 'fast', 1_000_000, 4, ['slow', 'fast', 'mid']);
    const out = round([x], knowsSlow({}, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'mid');
    assert.deepEqual(out.state.typeTrials?.jobs.x, { to: 'mid', from });
  });

  test('slower than before where the allocation would move it elsewhere: goes back all the same', () => {
    // Calibrated, fast runs resnet50 at 0.8 × its estimate (3.4 it/s) and mid at 1 × (4.24): Crius moves x from its
    // trial to mid (25 % faster by its estimate), still slower than the 4.8 it/s x was measured at on slow.
    const x = onType('x', 'fast', 1_000_000, 3.4, ['slow', 'fast', 'mid']);
    const state = knowsSlow({ 'resnet50|fast': 0.8, 'resnet50|mid': 1 });
    const alone = round([x], { ...state, typeTrials: undefined });
    assert.equal(alone.plan.get('x')?.gpuType, 'mid');
    const out = round([x], knowsSlow({ 'resnet50|fast': 0.8, 'resnet50|mid': 1 }, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
  });

  test('slower than before where the allocation moves it to a Cell it rates faster than where it came from: moves', () => {
    // mid calibrated at 1.2 × its estimate: 5.1 it/s, above the 4.8 x was measured at on slow.
    const x = onType('x', 'fast', 1_000_000, 3.4, ['slow', 'fast', 'mid']);
    const out = round([x], knowsSlow({ 'resnet50|fast': 0.8, 'resnet50|mid': 1.2 }, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'mid');
    assert.equal(out.state.typeTrials, undefined);
  });

  test('at least as fast as before: stays, and the trial ends', () => {
    const x = onType('x', 'fast', 1_000_000, 5.2, ['slow', 'fast', 'mid']);
    const out = round([x], knowsSlow({}, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'fast');
    assert.equal(out.state.typeTrials, undefined);
  });

  test('slower, but its old type is full: stays there, and the trial ends (judged once)', () => {
    const holders = [0, 1, 2, 3].map((g) =>
      running(
        { id: `s${g}`, gpus: 1, iterations: 1_000, priority: 1, gpuTypes: ['slow'] },
        gpusOf('slow', [g]),
      ),
    );
    const x = onType('x', 'fast', 1_000_000, 4, ['slow', 'fast']);
    const out = round([x, ...holders], knowsSlow({}, { x: trial }));
    assert.equal(out.plan.get('x')?.gpuType, 'fast');
    // Kept open, it would ask for a round every roundSeconds until the holders end (the simulator's periodic rounds).
    assert.equal(out.state.typeTrials, undefined);
  });
});

describe('a long job tries a Cell its calibrated estimate rates faster, below the scale-up margin', () => {
  // The calibration knows fast for resnet50 (efficiency 1): its calibrated estimate, 4.24 it/s, is 6 % above x's
  // measured 4 it/s on slow — below Crius's 10 % margin, so Crius alone keeps x where it is.
  const knowsBoth = (
    trials?: Record<string, TypeTrial>,
    tried?: Record<string, string[]>,
  ): SchedulerState => ({
    ...knowsSlow({ 'resnet50|fast': 1 }, trials),
    ...(tried ? { triedCells: tried } : {}),
  });

  test('moves there on trial when the expected saving beats the expected cost, remembering both Cells', () => {
    const out = round([onType('x', 'slow', 1_000_000, 4, ['slow', 'fast'])], knowsBoth());
    assert.equal(out.plan.get('x')?.gpuType, 'fast');
    assert.deepEqual(out.state.typeTrials?.jobs.x, {
      to: 'fast',
      gpus: 4,
      from: { gpuType: 'slow', gpus: 4, cell: { gpuType: 'slow', gpus: 4, stageGpus: [4] }, rate: 4 },
    });
    assert.deepEqual(out.state.triedCells?.x, ['slow|4', 'fast|4']);
    const crius = scheduleRound({
      now: 0,
      cluster: types,
      jobs: [onType('x', 'slow', 1_000_000, 4, ['slow', 'fast'])],
      state: knowsBoth(),
      policy: getPolicy('crius'),
      perf,
    });
    assert.equal(crius.plan.get('x')?.gpuType, 'slow');
  });

  test('not on a Cell it has run on or tried', () => {
    const out = round(
      [onType('x', 'slow', 1_000_000, 4, ['slow', 'fast'])],
      knowsBoth(undefined, { x: ['fast|4'] }),
    );
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
    assert.equal(out.state.typeTrials, undefined);
  });

  test('not where the worst case is above 1 % of the remaining time, nor while some job waits', () => {
    const short = round([onType('x', 'slow', 20_000, 4, ['slow', 'fast'])], knowsBoth());
    assert.equal(short.plan.get('x')?.gpuType, 'slow');
    const b = running(
      { id: 'b', gpus: 1, iterations: 1_000, priority: 1, gpuTypes: ['busy'] },
      gpusOf('busy', [0]),
    );
    const w = queued({ id: 'w', gpus: 1, iterations: 1_000, priority: -1, gpuTypes: ['busy'] });
    const waits = round([onType('x', 'slow', 1_000_000, 4, ['slow', 'fast']), b, w], knowsBoth());
    assert.equal(waits.plan.get('x')?.gpuType, 'slow');
  });

  test('not where the estimate is no faster than the measured rate', () => {
    const out = round([onType('x', 'slow', 1_000_000, 4.3, ['slow', 'fast'])], knowsBoth());
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
  });

  test('measured slower there: goes back to its old Cell (not on to an untried type), and the trial ends', () => {
    const from = { gpuType: 'slow', gpus: 4, cell: { gpuType: 'slow', gpus: 4, stageGpus: [4] }, rate: 4.8 };
    const x = onType('x', 'fast', 1_000_000, 4, ['slow', 'fast', 'mid']);
    const out = round([x], knowsBoth({ x: { to: 'fast', gpus: 4, from } }, { x: ['slow|4', 'fast|4'] }));
    assert.equal(out.plan.get('x')?.gpuType, 'slow');
    assert.equal(out.state.typeTrials, undefined);
  });
});

describe('a job admitted this round may start on an untried type as a trial', () => {
  // The untried `fast` is rated 3 % below `slow` here: Crius admits on slow, and the trial is the only way to fast.
  const below = linearPerf({ slow: 1, fast: 0.97, mid: 0.97, busy: 1 });
  const first = (jobs: JobState[]) =>
    scheduleRound({
      now: 0,
      cluster: types,
      jobs,
      state: knowsSlow(),
      policy: getPolicy('tessera'),
      perf: below,
    });

  test('it starts on the untried type, measured against the Cell it was given (its estimate)', () => {
    const q = queued({
      id: 'q',
      gpus: 4,
      iterations: 1_000_000,
      packable: false,
      gpuTypes: ['slow', 'fast'],
    });
    const out = first([q]);
    assert.equal(out.plan.get('q')?.gpuType, 'fast');
    const trial = out.state.typeTrials?.jobs.q;
    assert.equal(trial?.to, 'fast');
    assert.deepEqual(
      { ...trial?.from, cell: undefined },
      { gpuType: 'slow', gpus: 4, cell: undefined, rate: 4 },
    );
    assert.equal(trial?.from.cell.gpuType, 'slow');
  });

  test('its worst case has no restart there (a restart back and a round): 90 s ≤ 1 % of 10,000 s, 120 s is not', () => {
    // 40,000 iterations at 4 it/s: 10,000 s. Started, the same job would not try (two restarts and a round).
    const q = queued({ id: 'q', gpus: 4, iterations: 40_000, packable: false, gpuTypes: ['slow', 'fast'] });
    assert.equal(first([q]).plan.get('q')?.gpuType, 'fast');
    const x = onType('x', 'slow', 40_000, 4, ['slow', 'fast']);
    assert.equal(first([x]).plan.get('x')?.gpuType, 'slow');
  });
});
