import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bucketSteps, empiricalCdf, type StepPoint } from '../../../../lib/sim/report/downsample.ts';

/** Integral of a step series from its first point to `end`. */
const area = (points: readonly StepPoint[], end: number): number =>
  points.reduce((sum, p, i) => sum + p.value * ((points[i + 1]?.t ?? end) - p.t), 0);

const irregularSeries = (n: number): StepPoint[] => {
  const points: StepPoint[] = [];
  let t = 100;
  for (let i = 0; i < n; i++) {
    points.push({ t, value: (i * 37) % 11 });
    t += 1 + ((i * 13) % 7); // uneven gaps, like rounds triggered by arrivals and completions
  }
  return points;
};

describe('bucketSteps', () => {
  test('a series within the limit comes back point for point', () => {
    const points = irregularSeries(10);
    assert.deepEqual(
      bucketSteps(points, 500, 10),
      points.map((p) => ({ t: p.t, mean: p.value, max: p.value })),
    );
  });

  test('a long series is cut to exactly maxBuckets equal buckets from the first point to the end', () => {
    const points = irregularSeries(50_000);
    const end = points[points.length - 1]!.t + 5;
    const buckets = bucketSteps(points, end, 800);
    assert.equal(buckets.length, 800);
    assert.equal(buckets[0]!.t, points[0]!.t);
    const width = (end - points[0]!.t) / 800;
    buckets.forEach((b, k) => {
      assert.ok(Math.abs(b.t - (points[0]!.t + k * width)) < 1e-6);
    });
  });

  test('time-weighted means keep the area under the series', () => {
    const points = irregularSeries(5_000);
    const end = points[points.length - 1]!.t + 3;
    const buckets = bucketSteps(points, end, 300);
    const width = (end - points[0]!.t) / 300;
    const bucketArea = buckets.reduce((s, b) => s + b.mean * width, 0);
    assert.ok(Math.abs(bucketArea - area(points, end)) < 1e-6 * area(points, end));
  });

  test('max keeps a spike that lasted no time at all, mean does not', () => {
    const points: StepPoint[] = [];
    for (let t = 0; t < 1000; t++) points.push({ t, value: 1 });
    points.splice(500, 0, { t: 500, value: 99 }); // superseded at the same instant
    const buckets = bucketSteps(points, 1000, 10);
    const spike = buckets[5]!;
    assert.equal(spike.max, 99);
    assert.equal(spike.mean, 1);
    assert.ok(buckets.every((b, k) => k === 5 || b.max === 1));
  });

  test('a long constant stretch fills every bucket it covers', () => {
    const points = [...irregularSeries(20), { t: 1_000, value: 4 }];
    const buckets = bucketSteps(points, 100_000, 10);
    for (const b of buckets.slice(1)) assert.deepEqual([b.mean, b.max], [4, 4]);
  });

  test('means stay between the series minimum and the bucket max', () => {
    for (const b of bucketSteps(irregularSeries(3_000), 20_000, 64)) {
      assert.ok(b.mean >= 0 && b.mean <= b.max + 1e-9 && b.max <= 10);
    }
  });

  test('all points at one instant: the last one holds', () => {
    const points = [
      { t: 5, value: 3 },
      { t: 5, value: 8 },
      { t: 5, value: 2 },
    ];
    assert.deepEqual(bucketSteps(points, 5, 2), [{ t: 5, mean: 2, max: 8 }]);
  });

  test('empty input, bad bucket counts and out-of-order points', () => {
    assert.deepEqual(bucketSteps([], 10, 5), []);
    assert.throws(() => bucketSteps(irregularSeries(3), 10, 0), /maxBuckets must be a positive integer/);
    assert.throws(() => bucketSteps(irregularSeries(3), 10, 2.5), /maxBuckets/);
    assert.throws(
      () =>
        bucketSteps(
          [
            { t: 2, value: 1 },
            { t: 1, value: 1 },
          ],
          5,
          1,
        ),
      /point 1 at t=1 is before point 0/,
    );
  });
});

describe('empiricalCdf', () => {
  const exactY = (values: readonly number[], total: number, x: number) =>
    values.filter((v) => v <= x).length / total;

  test('few values: every distinct value once, with the share of total at or below it', () => {
    const values = [3, 1, 2, 2, 5];
    assert.deepEqual(empiricalCdf(values, 10, 100), [
      { x: 1, y: 0.1 },
      { x: 2, y: 0.3 },
      { x: 3, y: 0.4 },
      { x: 5, y: 0.5 },
    ]);
  });

  test('many values: at most maxPoints, all exact, monotone, from the minimum to the maximum', () => {
    const values = Array.from({ length: 100_000 }, (_, i) => Math.exp(((i * 7919) % 100_000) / 8_000));
    const cdf = empiricalCdf(values, 120_000, 800);
    assert.ok(cdf.length <= 800 && cdf.length > 700, `got ${cdf.length} points`);
    assert.equal(cdf[0]!.x, Math.min(...values));
    assert.equal(cdf[cdf.length - 1]!.x, Math.max(...values));
    assert.equal(cdf[cdf.length - 1]!.y, 100_000 / 120_000);
    for (let i = 1; i < cdf.length; i++) {
      assert.ok(cdf[i]!.x > cdf[i - 1]!.x && cdf[i]!.y > cdf[i - 1]!.y);
    }
    const sorted = [...values].sort((a, b) => a - b);
    for (const p of cdf.filter((_, i) => i % 50 === 0)) {
      assert.ok(sorted.includes(p.x), 'every point is a data value');
      assert.equal(p.y, exactY(values, 120_000, p.x));
    }
  });

  test('the sparse tail is not lost: the log-spaced half reaches into it', () => {
    // 99 % of values within one decade, 1 % spread over four more.
    const values = [
      ...Array.from({ length: 99_000 }, (_, i) => 1 + (i % 1000) / 100),
      ...Array.from({ length: 1_000 }, (_, i) => 10 * 10 ** (i / 250)),
    ];
    const cdf = empiricalCdf(values, values.length, 400);
    const inTail = cdf.filter((p) => p.x > 100).length;
    assert.ok(inTail >= 50, `only ${inTail} points above 100`);
  });

  test('non-finite values are dropped; total below the count is raised to it', () => {
    assert.deepEqual(empiricalCdf([Number.NaN, 2, Number.POSITIVE_INFINITY], 1, 10), [{ x: 2, y: 1 }]);
    assert.deepEqual(empiricalCdf([], 5, 10), []);
    assert.throws(() => empiricalCdf([1], 1, 1), /maxPoints must be an integer ≥ 2/);
  });
});
