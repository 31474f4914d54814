/** Percentile by linear interpolation between closest ranks (numpy's default); NaN for no data. */
export const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
};

export const mean = (values: readonly number[]): number =>
  values.length === 0 ? Number.NaN : values.reduce((s, v) => s + v, 0) / values.length;

export interface Distribution {
  readonly avg: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export const distribution = (values: readonly number[]): Distribution => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    avg: mean(sorted),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
  };
};
