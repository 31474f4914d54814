import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { comparisonRow, FLAGSHIP, flagshipSuite, otherPolicies, runSetup } from '../../bench/flagship.ts';
import {
  FLAGSHIP_SETUPS,
  flagshipPerf,
  flagshipSetups,
  HELD_OUT_FLAGSHIP_SETUPS,
  QUICK_FLAGSHIP_SETUPS,
  QUICK_HELD_OUT_FLAGSHIP_SETUPS,
} from '../../bench/flagship-setups.ts';
import type { BenchRow } from '../../bench/types.ts';
import { groundTruthModel } from '../../lib/sim/ground-truth.ts';
import type { SimSummary } from '../../lib/sim/summary.ts';

/** The cluster a setup name ends with (`…@cluster`) and the workload before it. */
const parts = (name: string) => {
  const at = name.lastIndexOf('@');
  return { workload: name.slice(0, at), cluster: name.slice(at + 1) };
};

describe('bench flagship --held-out', () => {
  test('the held-out matrices hold no named setup: each differs in window, rate, size or cluster', () => {
    const named = new Set([...FLAGSHIP_SETUPS, ...QUICK_FLAGSHIP_SETUPS].map((s) => s.name));
    for (const s of [...HELD_OUT_FLAGSHIP_SETUPS, ...QUICK_HELD_OUT_FLAGSHIP_SETUPS])
      assert.ok(!named.has(s.name), s.name);
    // No Philly window of the held-out matrix starts on the named matrix's day.
    for (const s of HELD_OUT_FLAGSHIP_SETUPS.filter((x) => x.name.startsWith('philly')))
      assert.doesNotMatch(parts(s.name).workload, /^philly-d49\+/);
  });

  test('--held-out selects the held-out matrix, --quick its small variant', () => {
    assert.equal(flagshipSetups({ quick: true, heldOut: true }), QUICK_HELD_OUT_FLAGSHIP_SETUPS);
    assert.equal(flagshipSetups({ quick: false, heldOut: true }), HELD_OUT_FLAGSHIP_SETUPS);
    assert.equal(flagshipSetups({ quick: true }), QUICK_FLAGSHIP_SETUPS);
    assert.equal(flagshipSetups({ quick: false, heldOut: false }), FLAGSHIP_SETUPS);
  });

  test('the suite with heldOut replays the held-out matrix through the simulator', () => {
    const rows = flagshipSuite.run({
      quick: true,
      heldOut: true,
      seed: 0,
      log: () => {},
    }) as Generator<BenchRow>;
    const first = rows.next();
    rows.return(undefined);
    assert.equal(first.done, false);
    assert.equal(first.value?.setup, QUICK_HELD_OUT_FLAGSHIP_SETUPS[0]!.name);
    assert.equal(first.value?.policy, otherPolicies(true)[0]); // tessera runs last in each setup
    assert.ok((first.value?.completed as number) > 0);
  });

  test("a held-out setup (Tiresias's tf_job trace) runs tessera and another policy side by side", () => {
    const setup = QUICK_HELD_OUT_FLAGSHIP_SETUPS.find((s) => s.name.startsWith('tiresias-tf_job'))!;
    const perf = flagshipPerf();
    const truth = groundTruthModel(perf, { seed: 0 });
    const w = setup.build(perf, truth, 0);
    assert.equal(w.jobs.length, 1);
    const run = runSetup(setup.name, w, [FLAGSHIP, 'fifo'], {
      perf,
      truth,
      seed: 0,
      log: () => {},
      lengthNoise: 2,
    });
    const perPolicy: BenchRow[] = [];
    let step = run.next();
    for (; !step.done; step = run.next()) perPolicy.push(step.value);
    const summaries: SimSummary[] = step.value;
    assert.deepEqual(
      perPolicy.map((r) => r.policy),
      [FLAGSHIP, 'fifo'],
    );
    assert.deepEqual(
      summaries.map((s) => s.completed),
      [1, 1],
    );
    const row = comparisonRow(setup.name, summaries, Number.POSITIVE_INFINITY);
    assert.equal(row.best, 'fifo');
    assert.ok(Number.isFinite(row.avgJctRatio) && (row.avgJctRatio as number) > 0);
  });
});

describe('bench flagship --trace <file> --cluster <name>', () => {
  test('replays one trace file (the Shockwave fixture) with tessera and every other policy side by side', () => {
    const path = fileURLToPath(new URL('../fixtures/traces/shockwave-120jobs.trace', import.meta.url));
    const rows = [
      ...(flagshipSuite.run({
        quick: true,
        seed: 0,
        log: () => {},
        trace: { path, cluster: 'tesserae-32' },
      }) as Iterable<BenchRow>),
    ];
    assert.deepEqual(
      rows.map((r) => r.setup),
      rows.map(() => 'shockwave-120jobs.trace@tesserae-32'),
    );
    assert.deepEqual(
      rows.map((r) => r.policy),
      [...otherPolicies(true), FLAGSHIP, `${FLAGSHIP}÷best`],
    );
    for (const r of rows.slice(0, -1)) assert.equal(r.completed, 11, r.policy);
    const comparison = rows.at(-1)!;
    assert.ok((comparison.avgJctRatio as number) > 0);
    assert.ok((comparison.makespanRatio as number) > 0);
  });
});
