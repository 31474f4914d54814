/**
 * Shrinking long series to a bounded number of points before they are drawn. A week of Philly has 10⁴–10⁵
 * timeline points per policy; a plot about 1000 px wide cannot show more than one value per pixel anyway.
 */

export interface StepPoint {
  readonly t: number;
  readonly value: number;
}

/** One time bucket of a step series: `t` is where it starts. */
export interface Bucket {
  readonly t: number;
  /** Time-weighted mean over the bucket. */
  readonly mean: number;
  /** Largest value held at any time in the bucket, even for an instant. */
  readonly max: number;
}

/**
 * Reduce a step series (each value holds from its `t` until the next point's `t`, the last one until `end`) to at
 * most `maxBuckets` equal-width time buckets. A series already that short is returned point for point, so small
 * runs are drawn exactly. Points must be in time order; of several points at one instant the last one holds.
 * The time-weighted mean keeps areas (GPU-hours, job-hours of waiting) right; the max keeps short peaks visible.
 */
export const bucketSteps = (points: readonly StepPoint[], end: number, maxBuckets: number): Bucket[] => {
  if (!Number.isInteger(maxBuckets) || maxBuckets < 1) {
    throw new RangeError(`bucketSteps: maxBuckets must be a positive integer, got ${maxBuckets}`);
  }
  const first = points[0];
  if (!first) return [];
  const last = points[points.length - 1]!;
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.t < points[i - 1]!.t) {
      throw new RangeError(`bucketSteps: point ${i} at t=${points[i]!.t} is before point ${i - 1}`);
    }
  }
  if (points.length <= maxBuckets) return points.map((p) => ({ t: p.t, mean: p.value, max: p.value }));
  const start = first.t;
  const stop = Math.max(end, last.t);
  if (stop <= start) {
    // Every point at one instant: the last one is what holds afterwards.
    return [{ t: start, mean: last.value, max: Math.max(...points.map((p) => p.value)) }];
  }

  const width = (stop - start) / maxBuckets;
  const edge = (k: number): number => (k >= maxBuckets ? stop : start + k * width);
  const weighted = new Float64Array(maxBuckets);
  const peaks = new Float64Array(maxBuckets).fill(Number.NEGATIVE_INFINITY);
  for (let i = 0; i < points.length; i++) {
    const { t: from, value } = points[i]!;
    const to = i + 1 < points.length ? points[i + 1]!.t : stop;
    let k = Math.min(maxBuckets - 1, Math.floor((from - start) / width));
    // Floating-point division can land one bucket off at an edge.
    while (k > 0 && from < edge(k)) k--;
    while (k < maxBuckets - 1 && from >= edge(k + 1)) k++;
    peaks[k] = Math.max(peaks[k]!, value);
    for (; k < maxBuckets && edge(k) < to; k++) {
      const overlap = Math.min(to, edge(k + 1)) - Math.max(from, edge(k));
      if (overlap > 0) weighted[k]! += value * overlap;
      peaks[k] = Math.max(peaks[k]!, value);
    }
  }
  const buckets: Bucket[] = [];
  for (let k = 0; k < maxBuckets; k++) {
    buckets.push({ t: edge(k), mean: weighted[k]! / (edge(k + 1) - edge(k)), max: peaks[k]! });
  }
  return buckets;
};

export interface CdfPoint {
  readonly x: number;
  /** Fraction of `total` with a value ≤ x. */
  readonly y: number;
}

/** Index of the first element greater than `x` in an ascending array, i.e. how many are ≤ x. */
const countAtMost = (sorted: readonly number[], x: number): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/**
 * The empirical CDF of `values` as its jump points (x, fraction of `total` that is ≤ x), at most `maxPoints` of
 * them. `total` may exceed the number of values (jobs that never completed), so the curve can end below 1.
 * When there are more distinct values than `maxPoints`, half of the points are taken at evenly spaced ranks
 * (keeping the steep parts) and half at values evenly spaced on a log scale, snapped down to a data value
 * (keeping the sparse tail the log axis spreads out). Every point kept is an exact point of the CDF.
 */
export const empiricalCdf = (values: readonly number[], total: number, maxPoints: number): CdfPoint[] => {
  if (!Number.isInteger(maxPoints) || maxPoints < 2) {
    throw new RangeError(`empiricalCdf: maxPoints must be an integer ≥ 2, got ${maxPoints}`);
  }
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const denominator = Math.max(total, sorted.length);
  const distinct = sorted.filter((v, i) => i === 0 || v !== sorted[i - 1]);
  const pointAt = (x: number): CdfPoint => ({ x, y: countAtMost(sorted, x) / denominator });
  if (distinct.length <= maxPoints) return distinct.map(pointAt);

  const half = Math.floor(maxPoints / 2);
  const chosen = new Set<number>([sorted[0]!, sorted[sorted.length - 1]!]);
  for (let k = 1; k < half; k++) chosen.add(sorted[Math.ceil((k * sorted.length) / half) - 1]!);
  const lo = sorted[0]!;
  const hi = sorted[sorted.length - 1]!;
  if (lo > 0) {
    for (let k = 1; k < half - 1; k++) {
      const target = Math.exp(Math.log(lo) + (k / (half - 1)) * (Math.log(hi) - Math.log(lo)));
      chosen.add(sorted[countAtMost(sorted, target) - 1]!);
    }
  }
  return [...chosen].sort((a, b) => a - b).map(pointAt);
};
