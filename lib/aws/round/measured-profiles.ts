/**
 * The round's performance model: the default model, overridden where the Profiles table has enough measured
 * samples of the same model, batch, GPU type, count and placement shape (pure). Measured figures replace the
 * estimate's total step time; compute and communication keep the estimate's proportions.
 */
import type { PerfModel, ThroughputEstimate, ThroughputQuery } from '../../core/model/perf.ts';
import {
  meanIterationsPerSecond,
  type ProfileItem,
  profilePlacement,
  profileSignature,
} from '../items/profile-item.ts';

/** Fewer samples than this and the estimate stands: one noisy report should not steer placement. */
export const MIN_PROFILE_SAMPLES = 3;

export const withMeasuredProfiles = (base: PerfModel, profiles: readonly ProfileItem[]): PerfModel => {
  const measured = new Map<string, number>();
  for (const p of profiles) {
    if (p.partner || p.samples < MIN_PROFILE_SAMPLES) continue;
    const ips = meanIterationsPerSecond(p);
    if (ips > 0) measured.set(`${p.signature}|${p.placement}`, ips);
  }
  if (measured.size === 0) return base;
  return {
    name: `${base.name}+profiles`,
    colocation: (gpuType, gpus, a, b) => base.colocation(gpuType, gpus, a, b),
    throughput(query: ThroughputQuery): ThroughputEstimate {
      const estimate = base.throughput(query);
      if (query.partner) return estimate;
      const key = `${profileSignature(query.model, query.batchSize)}|${profilePlacement({
        model: query.model,
        batchSize: query.batchSize,
        gpuType: query.gpuType,
        gpus: query.gpus,
        level: query.shape.level,
        hosts: query.shape.hosts,
      })}`;
      const ips = measured.get(key);
      if (ips === undefined) return estimate;
      const estimatedStep = estimate.computeSeconds + estimate.commSeconds;
      const step = 1 / ips;
      const computeShare = estimatedStep > 0 ? estimate.computeSeconds / estimatedStep : 1;
      return {
        iterationsPerSecond: ips,
        computeSeconds: step * computeShare,
        commSeconds: step * (1 - computeShare),
        source: 'measured',
      };
    },
  };
};
