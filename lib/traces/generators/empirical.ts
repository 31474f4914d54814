import type { Trace } from '../types.ts';
import type { Random } from './random.ts';
import type { ShapeSampler } from './workload.ts';

export interface EmpiricalOptions {
  /** Only draw jobs asking for at most this many GPUs (e.g. the cluster's size). */
  maxGpus?: number;
}

/**
 * Draws job sizes from an imported trace's empirical distribution: a uniformly chosen job's
 * (GPUs, duration) pair, so the correlation between size and length is kept. This is how the
 * Dally workloads get Philly-derived sizes. Jobs without a duration are not drawn.
 */
export const empiricalShape = (trace: Trace, { maxGpus }: EmpiricalOptions = {}): ShapeSampler => {
  if (maxGpus !== undefined && !(Number.isInteger(maxGpus) && maxGpus > 0))
    throw new RangeError(`maxGpus must be a positive integer, got ${maxGpus}`);
  const pool = trace.jobs.filter(
    (j) => j.duration !== undefined && j.duration > 0 && (maxGpus === undefined || j.gpus <= maxGpus),
  );
  if (pool.length === 0) {
    throw new RangeError(
      `trace ${trace.name} has no job with a duration${maxGpus === undefined ? '' : ` and at most ${maxGpus} GPUs`} to sample from`,
    );
  }
  return (rng: Random) => {
    const job = pool[rng.int(0, pool.length - 1)]!;
    return { gpus: job.gpus, duration: job.duration!, labels: { sampledFrom: `${trace.name}/${job.id}` } };
  };
};
