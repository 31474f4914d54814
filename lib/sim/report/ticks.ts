/** Axis tick positions and their labels. Pure number work, kept apart from the SVG drawing. */

export interface Tick {
  readonly value: number;
  readonly label: string;
}

/** The round step (1, 2 or 5 × 10^k) closest above `rough`. */
export const niceStep = (rough: number): number => {
  if (!(rough > 0) || !Number.isFinite(rough)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / magnitude;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * magnitude;
};

const decimalsOf = (step: number): number => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

/** Group thousands with a thin comma, independent of the machine's locale so that output is deterministic. */
export const groupThousands = (fixed: string): string => {
  const [whole = '', fraction] = fixed.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${fraction !== undefined ? `.${fraction}` : ''}`;
};

/**
 * Ticks at multiples of a round step covering [min, max], about `target` of them. Also returns the domain
 * widened to the outer ticks, so that a plot's top and right edges land on a labelled value.
 */
export const linearTicks = (
  min: number,
  max: number,
  target = 5,
): { readonly ticks: Tick[]; readonly min: number; readonly max: number } => {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return linearTicks(0, 1, target);
  if (max <= min) return linearTicks(min, min + (min === 0 ? 1 : Math.abs(min)), target);
  const step = niceStep((max - min) / target);
  const first = Math.floor(min / step + 1e-9);
  const last = Math.ceil(max / step - 1e-9);
  const decimals = decimalsOf(step);
  const ticks: Tick[] = [];
  for (let i = first; i <= last; i++) {
    const value = i * step;
    // toFixed removes binary noise such as 0.30000000000000004; '-0' can come out of it for tiny negatives.
    ticks.push({ value, label: groupThousands((Object.is(value, -0) ? 0 : value).toFixed(decimals)) });
  }
  return { ticks, min: first * step, max: last * step };
};

/** Labels for 1, 2 or 5 × 10^k: `0.05`, `1`, `2,000`. */
const decadeLabel = (value: number): string => {
  if (value >= 1) return groupThousands(value.toFixed(0));
  // Enough decimals for 0.001 or 0.05, then strip trailing zeros.
  return value.toFixed(Math.ceil(-Math.log10(value)) + 1).replace(/0+$/, '');
};

const STEPS_125 = [1, 2, 5, 10];

/** The largest 1, 2 or 5 × 10^k at or below `v`. */
const roundDown125 = (v: number): number => {
  const magnitude = 10 ** Math.floor(Math.log10(v) + 1e-9);
  const m = (v / magnitude) * (1 + 1e-9);
  return Number(((m >= 5 ? 5 : m >= 2 ? 2 : 1) * magnitude).toPrecision(12));
};

/** The smallest 1, 2 or 5 × 10^k at or above `v`. */
const roundUp125 = (v: number): number => {
  const magnitude = 10 ** Math.floor(Math.log10(v) + 1e-9);
  const m = (v / magnitude) * (1 - 1e-9);
  return Number((STEPS_125.find((s) => s >= m)! * magnitude).toPrecision(12));
};

/**
 * Log-scale ticks. The domain is [min, max] widened to the nearest 1, 2 or 5 × 10^k, so that no decade is
 * left empty; ticks sit on every power of ten inside it and on both ends. Narrower domains get 2× and 5× ticks
 * (under three decades) or every integer multiple (one decade or less), so the axis still has several labels.
 */
export const logTicks = (
  min: number,
  max: number,
): { readonly ticks: Tick[]; readonly min: number; readonly max: number } => {
  const rawLo = min > 0 && Number.isFinite(min) ? min : 1;
  const rawHi = max > rawLo && Number.isFinite(max) ? max : rawLo * 2;
  const lo = roundDown125(rawLo);
  let hi = roundUp125(rawHi);
  if (hi <= lo) hi = roundUp125(lo * 2);
  const decades = Math.log10(hi / lo);
  const multiples = decades <= 1 ? [1, 2, 3, 4, 5, 6, 7, 8, 9] : decades < 3 ? [1, 2, 5] : [1];
  const values = new Set<number>([lo, hi]);
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of multiples) {
      const value = Number((m * 10 ** e).toPrecision(12));
      if (value >= lo && value <= hi) values.add(value);
    }
  }
  const ticks = [...values].sort((a, b) => a - b).map((value) => ({ value, label: decadeLabel(value) }));
  return { ticks, min: lo, max: hi };
};
