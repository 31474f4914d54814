import { SOURCE_HOST_GPUS } from '../reference-hosts.ts';
import type { Trace } from '../types.ts';
import type { GeneratedTraceOptions } from './gavel.ts';
import type { Random } from './random.ts';
import { generateWorkload, type ShapeSampler } from './workload.ts';

/** The 100 durations Shockwave draws from: linspace(0.2 h, 5 h, 100), in seconds. */
export const SHOCKWAVE_DURATIONS: readonly number[] = Array.from(
  { length: 100 },
  (_, i) => (0.2 + (i * (5 - 0.2)) / 99) * 3600,
);

/**
 * Size classes as slices of the sorted durations (0–20 %, 20–50 %, 50–90 %, 90–100 %) and their
 * probabilities (Tesserae §4, after Shockwave's generator).
 */
export const SHOCKWAVE_SIZE_CLASSES: readonly {
  name: 'S' | 'M' | 'L' | 'XL';
  p: number;
  from: number;
  to: number;
}[] = [
  { name: 'S', p: 0.72, from: 0, to: 20 },
  { name: 'M', p: 0.2, from: 20, to: 50 },
  { name: 'L', p: 0.05, from: 50, to: 90 },
  { name: 'XL', p: 0.03, from: 90, to: 100 },
];

/** Shockwave's GPU demand: 1/2/4/8 GPUs with p = 0.6/0.3/0.09/0.01. */
export const SHOCKWAVE_GPU_DEMAND: readonly { gpus: number; p: number }[] = [
  { gpus: 1, p: 0.6 },
  { gpus: 2, p: 0.3 },
  { gpus: 4, p: 0.09 },
  { gpus: 8, p: 0.01 },
];

/** A size class by its probability, then a duration uniformly from its slice; the class is kept as a label. */
export const shockwaveShape: ShapeSampler = (rng: Random) => {
  const sizeClass =
    SHOCKWAVE_SIZE_CLASSES[rng.weightedIndex(SHOCKWAVE_SIZE_CLASSES.map((c) => c.p))] ??
    SHOCKWAVE_SIZE_CLASSES[0]!;
  const duration = SHOCKWAVE_DURATIONS[rng.int(sizeClass.from, sizeClass.to - 1)] ?? SHOCKWAVE_DURATIONS[0]!;
  const gpus = SHOCKWAVE_GPU_DEMAND[rng.weightedIndex(SHOCKWAVE_GPU_DEMAND.map((d) => d.p))]?.gpus ?? 1;
  return { gpus, duration, labels: { sizeClass: sizeClass.name } };
};

/** Shockwave-style trace: Shockwave job sizes, Poisson arrivals, models drawn from the list. */
export const generateShockwaveTrace = ({ jobs, ratePerHour, seed, models }: GeneratedTraceOptions): Trace =>
  generateWorkload({
    name: `shockwave:${jobs}:${ratePerHour}`,
    jobs,
    arrivals: { kind: 'poisson', ratePerHour },
    sampler: shockwaveShape,
    seed,
    idPrefix: 'shockwave',
    referenceHostGpus: SOURCE_HOST_GPUS.shockwave,
    ...(models && { models }),
  });
