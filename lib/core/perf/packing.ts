import type { ColocationEstimate, EstimateSource, ThroughputEstimate } from '../model/perf.ts';

const SOURCE_RANK: Readonly<Record<EstimateSource, number>> = { measured: 0, analytic: 1, estimated: 2 };

/** The less trustworthy of two sources (measured < analytic < estimated). */
export const weakerSource = (a: EstimateSource, b: EstimateSource): EstimateSource =>
  SOURCE_RANK[a] >= SOURCE_RANK[b] ? a : b;

/**
 * Throughput of a job while it shares its GPUs: its throughput alone × its normalised co-located speed.
 * Both parts of the iteration stretch by the same factor, so the split is kept.
 */
export const packedEstimate = (alone: ThroughputEstimate, co: ColocationEstimate): ThroughputEstimate => {
  const speed = co.normalized[0];
  const source = weakerSource(alone.source, co.source);
  if (!(speed > 0) || !(alone.iterationsPerSecond > 0)) {
    return { iterationsPerSecond: 0, computeSeconds: 0, commSeconds: 0, source };
  }
  return {
    iterationsPerSecond: alone.iterationsPerSecond * speed,
    computeSeconds: alone.computeSeconds / speed,
    commSeconds: alone.commSeconds / speed,
    source,
  };
};

/** The estimate of a job that cannot run (out of memory, batch too small for its GPUs). */
export const cannotRun = (source: EstimateSource): ThroughputEstimate => ({
  iterationsPerSecond: 0,
  computeSeconds: 0,
  commSeconds: 0,
  source,
});
