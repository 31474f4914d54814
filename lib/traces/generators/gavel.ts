import { SOURCE_HOST_GPUS } from '../reference-hosts.ts';
import type { Trace } from '../types.ts';
import type { ModelChoice } from './models.ts';
import type { Random } from './random.ts';
import { generateWorkload, type ShapeSampler } from './workload.ts';

/** Gavel's GPU demand (Philly-derived): 1/2/4/8 GPUs with 70/10/15/5 %. */
export const GAVEL_GPU_DEMAND: readonly { gpus: number; p: number }[] = [
  { gpus: 1, p: 0.7 },
  { gpus: 2, p: 0.1 },
  { gpus: 4, p: 0.15 },
  { gpus: 8, p: 0.05 },
];

/** With probability 0.8 a job is "short": 10^x minutes with x ~ U[1.5, 3]; otherwise x ~ U[3, 4]. */
export const GAVEL_SHORT_JOB_PROBABILITY = 0.8;

/** Gavel's job sizes (its `_generate_duration` and `_generate_scale_factor`). */
export const gavelShape: ShapeSampler = (rng: Random) => {
  const [low, high] = rng.float() < GAVEL_SHORT_JOB_PROBABILITY ? [1.5, 3] : [3, 4];
  const duration = 60 * 10 ** rng.uniform(low, high);
  const gpus = GAVEL_GPU_DEMAND[rng.weightedIndex(GAVEL_GPU_DEMAND.map((d) => d.p))]?.gpus ?? 1;
  return { gpus, duration };
};

export interface GeneratedTraceOptions {
  jobs: number;
  /** Poisson arrival rate, jobs per hour. */
  ratePerHour: number;
  seed: number;
  models?: readonly ModelChoice[];
}

/** Gavel-style trace: Gavel job sizes, Poisson arrivals, models drawn from the list. */
export const generateGavelTrace = ({ jobs, ratePerHour, seed, models }: GeneratedTraceOptions): Trace =>
  generateWorkload({
    name: `gavel:${jobs}:${ratePerHour}`,
    jobs,
    arrivals: { kind: 'poisson', ratePerHour },
    sampler: gavelShape,
    seed,
    idPrefix: 'gavel',
    referenceHostGpus: SOURCE_HOST_GPUS.gavel,
    ...(models && { models }),
  });
