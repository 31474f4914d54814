import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groupThousands, linearTicks, logTicks, niceStep } from '../../../../lib/sim/report/ticks.ts';

describe('niceStep', () => {
  test('rounds up to 1, 2 or 5 times a power of ten', () => {
    assert.deepEqual([0.13, 1, 1.5, 3, 7, 42, 999].map(niceStep), [0.2, 1, 2, 5, 10, 50, 1000]);
  });
});

describe('linearTicks', () => {
  test('round values covering the range, domain widened to the outer ticks', () => {
    const { ticks, min, max } = linearTicks(0, 7.2, 8);
    assert.deepEqual(
      ticks.map((t) => t.label),
      ['0', '1', '2', '3', '4', '5', '6', '7', '8'],
    );
    assert.deepEqual([min, max], [0, 8]);
  });

  test('labels carry the step’s decimals without binary noise', () => {
    assert.deepEqual(
      linearTicks(0, 0.3, 3).ticks.map((t) => t.label),
      ['0.0', '0.1', '0.2', '0.3'],
    );
  });

  test('large values are grouped', () => {
    assert.deepEqual(
      linearTicks(0, 25_000, 5).ticks.map((t) => t.label),
      ['0', '5,000', '10,000', '15,000', '20,000', '25,000'],
    );
  });

  test('degenerate ranges still give an axis', () => {
    assert.ok(linearTicks(0, 0).ticks.length >= 2);
    assert.ok(linearTicks(Number.NaN, Number.POSITIVE_INFINITY).ticks.length >= 2);
    assert.ok(linearTicks(5, 5).max > 5);
  });
});

describe('logTicks', () => {
  test('widens to 1-2-5 values and labels every decade in between', () => {
    const { ticks, min, max } = logTicks(0.05, 120);
    assert.deepEqual([min, max], [0.05, 200]);
    assert.deepEqual(
      ticks.map((t) => t.label),
      ['0.05', '0.1', '1', '10', '100', '200'],
    );
  });

  test('minutes to weeks in hours', () => {
    const { ticks } = logTicks(1 / 60, 3 * 168);
    assert.deepEqual(
      ticks.map((t) => t.label),
      ['0.01', '0.1', '1', '10', '100', '1,000'],
    );
  });

  test('narrow ranges get intermediate ticks', () => {
    assert.deepEqual(
      logTicks(3, 4.5).ticks.map((t) => t.label),
      ['2', '3', '4', '5'],
    );
    assert.deepEqual(
      logTicks(1.5, 40).ticks.map((t) => t.label),
      ['1', '2', '5', '10', '20', '50'],
    );
  });

  test('no positive data: a default decade', () => {
    const { min, max, ticks } = logTicks(Number.POSITIVE_INFINITY, 0);
    assert.ok(min > 0 && max > min && ticks.length >= 2);
  });
});

test('groupThousands keeps sign and decimals', () => {
  assert.equal(groupThousands('-1234567.891'), '-1,234,567.891');
  assert.equal(groupThousands('999'), '999');
});
