import { groupThousands } from './ticks.ts';

/** What the table shows for a statistic that has no value, e.g. a JCT percentile when no job completed. */
export const MISSING = '–';

const finite = (value: number, render: (v: number) => string): string =>
  Number.isFinite(value) ? render(value) : MISSING;

/** Seconds as hours with two decimals: the unit of every time in the report's tables. */
export const hours = (seconds: number): string =>
  finite(seconds, (s) => groupThousands((s / 3600).toFixed(2)));

/** Already in hours (GPU-hours). */
export const plainHours = (value: number): string => finite(value, (h) => groupThousands(h.toFixed(2)));

/** A 0–1 fraction as a percentage with one decimal. */
export const percent = (fraction: number): string => finite(fraction, (f) => `${(f * 100).toFixed(1)} %`);

export const count = (value: number): string => finite(value, (n) => groupThousands(n.toFixed(0)));

export const seconds = (value: number): string => finite(value, (s) => groupThousands(s.toFixed(2)));
