import prand from 'pure-rand';
import { getModelProfile } from '../lib/core/catalog/models.ts';
import type { JobSpec } from '../lib/core/model/job.ts';
import type { ModelChoice } from '../lib/traces/generators/models.ts';

export interface SyntheticJobOptions {
  readonly count: number;
  readonly seed: number;
  readonly models: readonly ModelChoice[];
  /** GPU demand distribution: [gpus, probability]. */
  readonly demand?: readonly (readonly [number, number])[];
}

/** Gavel's GPU-demand mix: 70 % 1 GPU, 10 % 2, 15 % 4, 5 % 8. */
export const GAVEL_DEMAND = [
  [1, 0.7],
  [2, 0.1],
  [4, 0.15],
  [8, 0.05],
] as const;

/** Jobs all submitted at t = 0 with seeded sizes: the standing queue a round benchmark schedules. */
export const syntheticJobs = (options: SyntheticJobOptions): JobSpec[] => {
  const rng = prand.xoroshiro128plus(options.seed);
  const uniform = () => prand.unsafeUniformIntDistribution(0, 1_000_000, rng) / 1_000_001;
  const demand = options.demand ?? GAVEL_DEMAND;
  return Array.from({ length: options.count }, (_, i) => {
    let u = uniform();
    let gpus = demand[demand.length - 1]![0];
    for (const [g, p] of demand) {
      if (u < p) {
        gpus = g;
        break;
      }
      u -= p;
    }
    const choice = options.models[Math.floor(uniform() * options.models.length)]!;
    const profile = getModelProfile(choice.model);
    return {
      id: `job-${String(i).padStart(5, '0')}`,
      tenant: `tenant-${i % 7}`,
      model: profile.id,
      batchSize: choice.batchSize === undefined ? profile.defaultBatchSize : choice.batchSize * gpus,
      gpus,
      iterations: 1_000 + Math.floor(uniform() * 100_000),
      priority: 0,
      packable: true,
      submitTime: Math.floor(uniform() * 3_600),
    };
  });
};
