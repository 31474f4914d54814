/**
 * Integer helpers that keep GPU counts small integers for V8. `2 ** e` and `n / 2` give heap doubles even when the
 * value is whole; a count stored as a double changes the hidden class of every object it lands in (demands, Cells,
 * perf queries), and shared functions already optimised for integer counts then deoptimise ("not a Smi", "wrong
 * map") the first time tessera's Crius stage runs. Same values as the plain expressions, so no decision changes.
 */

/** 2^e for a whole exponent, as `1 << e` where that is exact (0 ≤ e ≤ 30). */
export const twoToThe = (e: number): number => (e >= 0 && e <= 30 ? 1 << e : 2 ** e);

/** ⌊n / 2⌋ for n ≥ 0, as `n >> 1` where that is exact (n < 2^31). */
export const halfFloor = (n: number): number => (n >= 0 && n < 2 ** 31 ? n >> 1 : Math.floor(n / 2));
