import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chosenSetups, comparisonRow, FLAGSHIP, otherPolicies, targetMisses } from '../../bench/flagship.ts';
import { formatFlagshipReport } from '../../bench/flagship-report.ts';
import type { BenchRow } from '../../bench/types.ts';
import type { SimSummary } from '../../lib/sim/summary.ts';

const summary = (policy: string, s: Partial<SimSummary>): SimSummary =>
  ({
    policy,
    completed: 10,
    avgJct: 100,
    p50Jct: 50,
    p99Jct: 400,
    makespan: 1000,
    gpuHours: 10,
    cost: 5,
    unpricedGpuHours: 0,
    jctLowerBound: 80,
    wallSeconds: 1,
    ...s,
  }) as SimSummary;

describe('bench flagship comparison', () => {
  test('each ratio is against the best other policy on that metric', () => {
    const row = comparisonRow(
      'x',
      [
        summary(FLAGSHIP, { avgJct: 90, p99Jct: 440 }),
        summary('srtf', { avgJct: 100, p99Jct: 500 }),
        summary('fifo', { avgJct: 150, p99Jct: 400 }),
      ],
      0.5,
    );
    assert.equal(row.best, 'srtf');
    assert.equal(row.avgJctRatio, 0.9);
    assert.equal(row.p99JctRatio, 1.1);
    assert.equal(row.jctOverLowerBound, 1.125);
    assert.equal(row.meetsTargets, true);
  });

  test('a policy that completed fewer jobs does not compete; misses fail the targets', () => {
    const row = comparisonRow(
      'x',
      [
        summary(FLAGSHIP, { avgJct: 120 }),
        summary('dropper', { avgJct: 10, completed: 7 }),
        summary('srtf', {}),
      ],
      0.5,
    );
    assert.equal(row.best, 'srtf');
    assert.equal(row.avgJctRatio, 1.2);
    assert.equal(row.meetsTargets, false);
  });

  test('no time ratio where the baselines took no measurable time (a one-job trace); a wall miss otherwise', () => {
    const instant = comparisonRow(
      'x',
      [
        summary(FLAGSHIP, { wallSeconds: 0.001, cpuSeconds: 0.001 } as Partial<SimSummary>),
        summary('srtf', { wallSeconds: 0, cpuSeconds: 0 } as Partial<SimSummary>),
      ],
      0.5,
    );
    assert.ok(Number.isNaN(instant.wallRatio) && Number.isNaN(instant.cpuRatio));
    assert.equal(instant.meetsTargets, true);
    const slow = comparisonRow(
      'x',
      [summary(FLAGSHIP, { wallSeconds: 3 }), summary('srtf', { wallSeconds: 1 })],
      0.5,
    );
    assert.equal(slow.wallRatio, 3);
    assert.equal(slow.misses, 'wall 3 > 2');
  });

  test('no ratio where the best is zero (GPU types without a price)', () => {
    const row = comparisonRow('x', [summary(FLAGSHIP, { cost: 0 }), summary('srtf', { cost: 0 })], 0.5);
    assert.ok(Number.isNaN(row.costRatio));
  });

  test('no cost ratio where some GPU time has no EC2 price (it would compare only the priced part)', () => {
    const row = comparisonRow(
      'x',
      [summary(FLAGSHIP, { cost: 4, unpricedGpuHours: 3 }), summary('srtf', { cost: 5 })],
      0.5,
    );
    assert.ok(Number.isNaN(row.costRatio));
  });

  test('a row names each target it misses, with its value and the target', () => {
    const row = comparisonRow(
      'x',
      [summary(FLAGSHIP, { p99Jct: 480, avgJct: 130, wallSeconds: 3 }), summary('srtf', { wallSeconds: 1 })],
      0.5,
    );
    assert.equal(row.meetsTargets, false);
    assert.equal(row.misses, 'avg 1.3 > 1.05; p99 1.2 > 1.1; avg÷LB 1.625 > 1.5; wall 3 > 2');
  });

  test('the lower-bound target applies only where offered load ≤ 0.8; fewer completed jobs is a miss', () => {
    const r = { avgJctRatio: 1, p99JctRatio: 1, makespanRatio: 1, jctOverLowerBound: 3, wallRatio: 1 };
    assert.deepEqual(targetMisses({ ...r, offeredLoad: 0.9 }), []);
    assert.deepEqual(targetMisses({ ...r, offeredLoad: Number.POSITIVE_INFINITY }), []);
    assert.deepEqual(targetMisses({ ...r, offeredLoad: 0.8 }), ['avg÷LB 3 > 1.5']);
    assert.deepEqual(targetMisses({ ...r, offeredLoad: 0.9 }, { tessera: 9, most: 10 }), [
      'completed 9 < 10',
    ]);
  });

  test('--setup keeps the setups whose names contain its text; a text that matches none names the setups', () => {
    const setups = [{ name: 'philly@a' }, { name: 'gavel@a' }, { name: 'philly@b' }];
    assert.deepEqual(
      chosenSetups(setups, 'philly').map((s) => s.name),
      ['philly@a', 'philly@b'],
    );
    assert.equal(chosenSetups(setups).length, 3);
    assert.throws(
      () => chosenSetups(setups, 'pollux'),
      /no flagship setup matches "pollux"; setups: philly@a, gavel@a/,
    );
  });

  test('the full run compares with every registered policy but tessera and aliases', () => {
    const others = otherPolicies(false);
    assert.ok(!others.includes(FLAGSHIP) && !others.includes('fcfs'));
    for (const p of ['fifo', 'srtf', 'tesserae-t', 'crius', 'dally', 'easyscale', 'gavel', 'elasticflow'])
      assert.ok(others.includes(p), p);
  });
});

describe('bench flagship report', () => {
  const policyRow = (policy: string, avgJct: number): BenchRow => ({
    suite: 'flagship',
    setup: 'philly@c',
    policy,
    jobs: 10,
    completed: 10,
    avgJct,
    p50Jct: 50,
    p99Jct: 400,
    makespan: 1000,
    gpuHours: 10,
    cost: 0,
    wallSeconds: 1,
    cpuSeconds: 0.9,
  });
  const rows: BenchRow[] = [
    policyRow('srtf', 100),
    policyRow(FLAGSHIP, 120),
    comparisonRow('philly@c', [summary(FLAGSHIP, { avgJct: 120 }), summary('srtf', {})], 0.5),
  ];
  const text = formatFlagshipReport(rows);

  test('one table per setup with tessera first, then the comparison with each miss named', () => {
    const lines = text.split('\n');
    assert.match(lines[0]!, /^philly@c — 10 jobs, offered load 0\.50$/);
    assert.match(lines[3]!, /^ {2}tessera +10\/10 +120 /);
    assert.match(lines[4]!, /^ {2}srtf +10\/10 +100 /);
    assert.match(text, /philly@c +srtf +1\.20 .* MISS avg 1\.2 > 1\.05$/m);
    assert.match(text, /^targets met on 0 of 1 setups$/m);
  });

  test('no cost where a policy has none; no line wider than 120 characters for these names', () => {
    assert.match(text, /^ {2}tessera .* – +1\.00 +0\.90$/m);
    for (const line of text.split('\n')) assert.ok(line.length <= 120, line);
  });
});
