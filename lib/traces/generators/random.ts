import { type RandomGenerator, unsafeUniformIntDistribution, xoroshiro128plus } from 'pure-rand';

const TWO_POW_26 = 2 ** 26;
const TWO_POW_53 = 2 ** 53;

/**
 * A seeded random source over pure-rand's xoroshiro128+. Deterministic: the same seed and stream
 * give the same draws. Stream k starts the generator jumped ahead (k + 1) · 2^64 steps, so each
 * purpose (arrivals, job sizes, models) gets its own independent sequence and changing one
 * setting (e.g. the arrival rate) leaves the others' draws unchanged.
 */
export class Random {
  readonly #rng: RandomGenerator;

  constructor(seed: number, stream = 0) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
    if (!(Number.isInteger(stream) && stream >= 0))
      throw new RangeError(`stream must be an integer ≥ 0, got ${stream}`);
    // xoroshiro128+ seeded with a small integer starts with poorly mixed outputs (0xfffffffe, …):
    // hash the seed, and start every stream at least one jump in, which scrambles the state fully.
    let rng = xoroshiro128plus(mix32((seed ^ Math.floor(seed / 2 ** 32)) | 0));
    for (let i = 0; i <= stream; i++) rng = rng.jump?.() ?? rng;
    this.#rng = rng;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  float(): number {
    const hi = this.#rng.unsafeNext() >>> 5;
    const lo = this.#rng.unsafeNext() >>> 6;
    return (hi * TWO_POW_26 + lo) / TWO_POW_53;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.float();
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return unsafeUniformIntDistribution(min, max, this.#rng);
  }

  /** Exponential with the given rate (mean 1 / rate). */
  exponential(rate: number): number {
    return -Math.log(1 - this.float()) / rate;
  }

  /** An index drawn with probability proportional to `weights[i]` (non-negative, not all zero). */
  weightedIndex(weights: readonly number[]): number {
    const total = weights.reduce((s, w) => s + w, 0);
    let r = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    // Rounding can leave r at 0 after the last subtraction: fall back to the last positive weight.
    return weights.findLastIndex((w) => w > 0);
  }
}

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the output. */
const mix32 = (x: number): number => {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
};
