import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PerfModel, ThroughputQuery } from '../../../lib/core/model/perf.ts';
import { getPolicy } from '../../../lib/core/policies.ts';
import { simulate } from '../../../lib/sim/simulator.ts';
import { cluster, linearPerf, spec } from '../../support/fixtures.ts';

// Tessera's type trials (lib/core/plugins/tessera/type-trials.ts) through the real round in the simulator. The
// scheduler's model rates `slow` 6 % above `fast` (below Crius's 10 % margin: Crius never moves a job between them);
// the executor runs `fast` at `fastTruth` × the estimate.
const twoTypes = cluster([
  { gpuType: 'slow', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'fast', hosts: 1, gpusPerHost: 4 },
  { gpuType: 'side', hosts: 1, gpusPerHost: 2 },
]);
const believed = linearPerf({ slow: 1.06, fast: 1 });
const executor = (fastTruth: number): PerfModel => ({
  name: `truth(fast × ${fastTruth})`,
  throughput: (q: ThroughputQuery) => {
    const e = believed.throughput(q);
    const m = q.gpuType === 'fast' ? fastTruth : 1;
    return { ...e, iterationsPerSecond: e.iterationsPerSecond * m, computeSeconds: e.computeSeconds / m };
  },
  colocation: believed.colocation,
});

// A long 4-GPU job (twice its count fits no type: no scale-up) from time 0, and a second job later on a type of its own:
// its arrival is the first round after the long one is measured, which starts the trial; the simulator then keeps
// rounds going while a trial is open (without them the job would never be judged on the tried type).
const jobs = [
  spec({ id: 'long', gpus: 4, iterations: 1_000_000, submitTime: 0, packable: false }),
  spec({ id: 'other', gpus: 1, iterations: 100_000, submitTime: 600, packable: false, gpuTypes: ['side'] }),
];

const run = (policy: string, fastTruth: number) => {
  const types: string[] = [];
  const result = simulate({
    cluster: twoTypes,
    jobs,
    policy: getPolicy(policy),
    perf: believed,
    truth: executor(fastTruth),
    config: { roundSeconds: 60, restartSeconds: 30 },
    onRound: (_now, out) => {
      const type = out.plan.get('long')?.gpuType;
      if (type && types.at(-1) !== type) types.push(type);
    },
  });
  const jct = result.jobs.find((j) => j.id === 'long')!.jct!;
  return { jct, types };
};

describe('tessera tries a long job on the type its model never ran on, in the simulator', () => {
  test('the untried type is 30 % faster in truth: tessera moves there and stays; crius stays on the rated type', () => {
    const tessera = run('tessera', 1.3);
    const crius = run('crius', 1.3);
    assert.deepEqual(crius.types, ['slow']);
    // Admitted with nobody waiting, it starts on the untried type as a trial (no restart to go there) and stays; at
    // the second job's arrival `slow`, which its model has not run on either, is tried once and found slower.
    assert.deepEqual(tessera.types, ['fast', 'slow', 'fast']);
    // 1 M iterations at 4.24 it/s (236 k s) against 5.2 it/s from the start.
    assert.ok(tessera.jct < 0.85 * crius.jct, `tessera ${tessera.jct} s, crius ${crius.jct} s`);
  });

  test('the untried type is slower in truth: tessera goes back at the next round and loses well under 1 %', () => {
    const tessera = run('tessera', 0.8);
    const crius = run('crius', 0.8);
    // Started on the untried type as a trial, measured slower than the estimate where it was admitted: back.
    assert.deepEqual(tessera.types, ['fast', 'slow']);
    assert.ok(tessera.jct > crius.jct, 'the trial costs something');
    assert.ok(tessera.jct < 1.01 * crius.jct, `tessera ${tessera.jct} s, crius ${crius.jct} s`);
  });
});

describe('a trial measured slower whose way back is full, in the simulator', () => {
  // `long` starts on the untried `fast` as a trial (0.8 × the estimate in truth); 30 s later `filler`, which may run
  // only on `slow`, takes the whole `slow` machine for ~24 k s. At the next round `long` is measured slower on its
  // trial with no room back: it stays and the trial ends (judged once). Kept open, it asked for a round every 60 s
  // until `filler` ended (~400 rounds that could change nothing); now rounds come only with the events.
  const stuck = [
    spec({ id: 'long', gpus: 4, iterations: 1_000_000, submitTime: 0, packable: false }),
    spec({ id: 'filler', gpus: 4, iterations: 100_000, submitTime: 30, packable: false, gpuTypes: ['slow'] }),
  ];

  test('asks for no periodic rounds while it waits for room, and the job still goes back when room comes', () => {
    let rounds = 0;
    const types: string[] = [];
    const result = simulate({
      cluster: twoTypes,
      jobs: stuck,
      policy: getPolicy('tessera'),
      perf: believed,
      truth: executor(0.8),
      config: { roundSeconds: 60, restartSeconds: 30 },
      onRound: (_now, out) => {
        rounds++;
        const type = out.plan.get('long')?.gpuType;
        if (type && types.at(-1) !== type) types.push(type);
      },
    });
    const filler = result.jobs.find((j) => j.id === 'filler')!;
    assert.equal(filler.outcome, 'completed');
    assert.ok(filler.finishTime! > 20_000, `filler ended at ${filler.finishTime} s`);
    // Rounds at the two arrivals, the completions, and no more than a few in between.
    assert.ok(rounds <= 6, `${rounds} rounds`);
    // The calibration learned `fast` from the trial: Crius moves it back once `slow` frees (≥ 10 % faster there).
    assert.deepEqual(types, ['fast', 'slow']);
  });
});
