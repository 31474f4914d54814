import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { comparisonRow, FLAGSHIP, otherPolicies } from '../../bench/flagship.ts';
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

  test('no ratio where the best is zero (GPU types without a price)', () => {
    const row = comparisonRow('x', [summary(FLAGSHIP, { cost: 0 }), summary('srtf', { cost: 0 })], 0.5);
    assert.ok(Number.isNaN(row.costRatio));
  });

  test('the full run compares with every registered policy but tessera and aliases', () => {
    const others = otherPolicies(false);
    assert.ok(!others.includes(FLAGSHIP) && !others.includes('fcfs'));
    for (const p of ['fifo', 'srtf', 'tesserae-t', 'crius', 'dally', 'easyscale', 'gavel', 'elasticflow'])
      assert.ok(others.includes(p), p);
  });
});
