import { isHolding } from '../../framework/compare.ts';
import type { JobState } from '../../model/job.ts';
import type { CellConfig, JobCells } from './job-cells.ts';
import type { VirtualAllocation } from './virtual.ts';

/** What the type swap needs to know about a job's remaining work and the price of moving it. */
export interface TypeSwapOptions {
  /** Iterations a job still has to run, as the scheduler guesses them. */
  readonly remainingIterations: (job: JobState) => number;
  readonly restartSeconds: number;
  /** Pairs examined per round at most (bounds the pass on large clusters). */
  readonly maxPairs: number;
}

/** The job's best Cell on `gpuType` at exactly `gpus` GPUs (configs are best value first). */
const cellOn = (cells: JobCells, gpuType: string, gpus: number): CellConfig | undefined =>
  cells.configs.find((c) => c.gpuType === gpuType && c.gpus === gpus);

/** Estimated seconds until `job` finishes on `config`, counting a restart when it moves off the type it runs on. */
const secondsOn = (job: JobState, config: CellConfig, o: TypeSwapOptions): number => {
  const rate = config.rate;
  if (!(rate > 0)) return Number.POSITIVE_INFINITY;
  const moves = isHolding(job) && job.allocation!.gpuType !== config.gpuType;
  return o.remainingIterations(job) / rate + (moves ? o.restartSeconds : 0);
};

/**
 * When nobody waits, every admitted job runs until it ends, so the sum of JCTs is the sum of the jobs' remaining
 * times: the jobs with the most work left should get the fastest types. Admission in the order (shortest first)
 * hands the fast GPUs to the short jobs that happen to be admitted first. This pass exchanges the types of two
 * admitted jobs of the same GPU count when that lowers their summed estimated remaining time (restarts included)
 * by more than a restart — the margin keeps estimates' noise from moving jobs back and forth.
 */
export const swapTypesByRemainingWork = (
  vc: VirtualAllocation,
  cellsOf: (jobId: string) => JobCells | undefined,
  o: TypeSwapOptions,
): number => {
  const ids = [...vc.entries()].map(([id]) => id);
  // One type in use (e.g. a homogeneous cluster): nothing to exchange.
  if (new Set(ids.map((id) => vc.get(id)!.gpuType)).size < 2) return 0;
  // Only jobs of the same GPU count can exchange types: each job's later partners of its count, in id order. A swap
  // keeps both counts, so the groups stay valid.
  const byCount = new Map<number, number[]>();
  for (let i = 0; i < ids.length; i++) {
    const gpus = vc.get(ids[i]!)!.gpus;
    const group = byCount.get(gpus) ?? [];
    group.push(i);
    byCount.set(gpus, group);
  }
  let pairs = 0;
  let visited = 0;
  const maxVisited = o.maxPairs * 64; // same-type pairs are skipped uncounted; this bounds the skipping too
  let swaps = 0;
  // Best improvement first: the largest gain is applied, then the pairs are looked at again.
  for (;;) {
    let best: { a: string; b: string; a2: CellConfig; b2: CellConfig; gain: number } | undefined;
    for (const group of byCount.values()) {
      for (let gi = 0; gi < group.length && pairs < o.maxPairs && visited < maxVisited; gi++) {
        const i = group[gi]!;
        for (let gk = gi + 1; gk < group.length && pairs < o.maxPairs && visited < maxVisited; gk++) {
          const k = group[gk]!;
          visited++;
          const a = vc.get(ids[i]!)!;
          const b = vc.get(ids[k]!)!;
          if (a.gpuType === b.gpuType) continue;
          pairs++;
          const ca = cellsOf(ids[i]!);
          const cb = cellsOf(ids[k]!);
          // Elastic jobs' Cells are claims the elastic tier resizes every round: they are not moved for their type.
          if (!ca || !cb || ca.job.spec.elastic || cb.job.spec.elastic) continue;
          const a2 = cellOn(ca, b.gpuType, b.gpus);
          const b2 = cellOn(cb, a.gpuType, a.gpus);
          if (!a2 || !b2) continue;
          const [sa, sb] = [secondsOn(ca.job, a, o), secondsOn(cb.job, b, o)];
          const [sa2, sb2] = [secondsOn(ca.job, a2, o), secondsOn(cb.job, b2, o)];
          const gain = sa + sb - (sa2 + sb2);
          // The pair's longer job must not get longer: it may set the tail and the makespan.
          if (Math.max(sa2, sb2) > Math.max(sa, sb)) continue;
          if (!(gain > o.restartSeconds)) continue;
          if (!best || gain > best.gain) best = { a: ids[i]!, b: ids[k]!, a2, b2, gain };
        }
      }
    }
    if (!best) return swaps;
    vc.release(best.a);
    vc.release(best.b);
    vc.assign(best.a, best.a2);
    vc.assign(best.b, best.b2);
    swaps++;
  }
};
