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

const decadeLabel = (value: number): string => {
  if (value >= 1) return groupThousands(value.toFixed(0));
  // Enough decimals for 0.001 or 0.05, then strip trailing zeros.
  return value.toFixed(Math.ceil(-Math.log10(value)) + 1).replace(/0+$/, '');
};

/**
 * Log-scale ticks: whole decades from 10^floor(log10 min) to 10^ceil(log10 max); when that is fewer than three
 * decades, 2× and 5× ticks are added so that the axis still has several labels.
 */
export const logTicks = (
  min: number,
  max: number,
): { readonly ticks: Tick[]; readonly min: number; readonly max: number } => {
  const lo = min > 0 && Number.isFinite(min) ? min : 1;
  const hi = max > lo && Number.isFinite(max) ? max : lo * 10;
  const firstExp = Math.floor(Math.log10(lo) + 1e-9);
  let lastExp = Math.ceil(Math.log10(hi) - 1e-9);
  if (lastExp === firstExp) lastExp++;
  const multiples = lastExp - firstExp < 3 ? [1, 2, 5] : [1];
  const ticks: Tick[] = [];
  for (let e = firstExp; e <= lastExp; e++) {
    for (const m of multiples) {
      if (e === lastExp && m > 1) break;
      const value = m * 10 ** e;
      ticks.push({ value, label: decadeLabel(Number(value.toPrecision(12))) });
    }
  }
  return { ticks, min: 10 ** firstExp, max: 10 ** lastExp };
};
