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

/**
 * Estimated seconds until `job` finishes on `config` (`remaining` iterations left), counting a restart when it
 * moves off the type it runs on.
 */
const secondsOn = (job: JobState, config: CellConfig, o: TypeSwapOptions, remaining: number): number => {
  const rate = config.rate;
  if (!(rate > 0)) return Number.POSITIVE_INFINITY;
  const moves = isHolding(job) && job.allocation!.gpuType !== config.gpuType;
  return remaining / rate + (moves ? o.restartSeconds : 0);
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
  const table = swapTable(vc, ids, cellsOf, o);
  const { typeOf, seconds, swappable } = table;
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
    let best: { i: number; k: number; gain: number } | undefined;
    for (const group of byCount.values()) {
      for (let gi = 0; gi < group.length && pairs < o.maxPairs && visited < maxVisited; gi++) {
        const i = group[gi]!;
        for (let gk = gi + 1; gk < group.length && pairs < o.maxPairs && visited < maxVisited; gk++) {
          const k = group[gk]!;
          visited++;
          const ta = typeOf[i]!;
          const tb = typeOf[k]!;
          if (ta === tb) continue;
          pairs++;
          // Elastic jobs' Cells are claims the elastic tier resizes every round: they are not moved for their type.
          if (!swappable[i] || !swappable[k]) continue;
          const sa2 = seconds[i]![tb];
          const sb2 = seconds[k]![ta];
          if (sa2 === undefined || sb2 === undefined) continue;
          const sa = table.current[i]!;
          const sb = table.current[k]!;
          const gain = sa + sb - (sa2 + sb2);
          // The pair's longer job must not get longer: it may set the tail and the makespan.
          if (Math.max(sa2, sb2) > Math.max(sa, sb)) continue;
          if (!(gain > o.restartSeconds)) continue;
          if (!best || gain > best.gain) best = { i, k, gain };
        }
      }
    }
    if (!best) return swaps;
    const { i, k } = best;
    const [ta, tb] = [typeOf[i]!, typeOf[k]!];
    vc.release(ids[i]!);
    vc.release(ids[k]!);
    vc.assign(ids[i]!, table.configs[i]![tb]!);
    vc.assign(ids[k]!, table.configs[k]![ta]!);
    table.move(i, tb);
    table.move(k, ta);
    swaps++;
  }
};

/**
 * What the pass reads about each admitted job, computed once instead of once per pair visit: its Cell of its count
 * on each type and the seconds it would take there, and the seconds on what it holds now. Types are small indices.
 */
interface SwapTable {
  /** Per job: the type index of the Cell it holds in the virtual allocation. */
  readonly typeOf: number[];
  /** Per job: `secondsOn` its current Cell. */
  readonly current: number[];
  /** Per job and type index: its Cell of its count there (undefined: none), and `secondsOn` it. */
  readonly configs: (CellConfig | undefined)[][];
  readonly seconds: (number | undefined)[][];
  /** Per job: it has Cells and is not elastic. */
  readonly swappable: boolean[];
  /** The job now holds its Cell on type index `t`. */
  move(i: number, t: number): void;
}

const swapTable = (
  vc: VirtualAllocation,
  ids: readonly string[],
  cellsOf: (jobId: string) => JobCells | undefined,
  o: TypeSwapOptions,
): SwapTable => {
  const typeIndex = new Map<string, number>();
  const indexOf = (type: string): number => {
    let t = typeIndex.get(type);
    if (t === undefined) {
      t = typeIndex.size;
      typeIndex.set(type, t);
    }
    return t;
  };
  for (const id of ids) indexOf(vc.get(id)!.gpuType);
  const typeOf: number[] = [];
  const current: number[] = [];
  const configs: (CellConfig | undefined)[][] = [];
  const seconds: (number | undefined)[][] = [];
  const swappable: boolean[] = [];
  for (const id of ids) {
    const held = vc.get(id)!;
    const cells = cellsOf(id);
    typeOf.push(typeIndex.get(held.gpuType)!);
    const on: (CellConfig | undefined)[] = [];
    const secs: (number | undefined)[] = [];
    if (cells) {
      const remaining = o.remainingIterations(cells.job);
      current.push(secondsOn(cells.job, held, o, remaining));
      for (const [type, t] of typeIndex) {
        const config = cellOn(cells, type, held.gpus);
        on[t] = config;
        secs[t] = config ? secondsOn(cells.job, config, o, remaining) : undefined;
      }
    } else current.push(Number.NaN);
    configs.push(on);
    seconds.push(secs);
    swappable.push(cells !== undefined && !cells.job.spec.elastic);
  }
  return {
    typeOf,
    current,
    configs,
    seconds,
    swappable,
    move(i, t) {
      typeOf[i] = t;
      current[i] = seconds[i]![t]!;
    },
  };
};
