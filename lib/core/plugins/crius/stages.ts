/**
 * Stage determination of a Cell (Crius §4.2, Fig. 7): map the Cell's G GPUs onto the layers in proportion to
 * their FLOPs (g_l = G · flops_l / F), cut the chain where the inter-layer communication is smallest, and give
 * each stage the sum of its layers' GPUs, which should be (close to) a power of two.
 *
 * [decision] Among all ways to cut the chain into N_S stages, pick the one with the least boundary traffic
 * whose stages' FLOP-proportional GPU sums, each rounded to the nearest power of two (in log scale, at least
 * one GPU), add up to G; ties (e.g. identical transformer blocks) go to the split whose rounding distorts the
 * FLOP shares least, then to the evenest one (smaller groups communicate less). When no split rounds exactly, take the best split and repair: halve the most
 * over-provisioned stage while the sum exceeds G, double the most under-provisioned one while it fits; a split
 * that still does not sum to G is rejected.
 */
import { halfFloor, twoToThe } from './power-of-two.ts';

export interface StageChainLayer {
  readonly flops: number;
  /** Bytes per sample leaving the layer: the traffic of a cut placed after it. */
  readonly outputBytes: number;
}

export interface StageAssignment {
  /** GPUs per stage (powers of two, summing to G). */
  readonly stageGpus: readonly number[];
  /** Index of each stage's first layer. */
  readonly stageLayers: readonly number[];
}

/** g_l = G · flops_l / F: the fractional GPUs each layer deserves. */
export const fractionalGpus = (layers: readonly StageChainLayer[], gpus: number): number[] => {
  const total = layers.reduce((s, l) => s + l.flops, 0);
  return layers.map((l) => (total > 0 ? (gpus * l.flops) / total : gpus / layers.length));
};

/** Nearest power of two in log scale, at least 1. */
export const roundToPowerOfTwo = (x: number): number => (x <= 1 ? 1 : twoToThe(Math.round(Math.log2(x))));

/** How far rounding moves a stage from its FLOP share, in octaves. */
const distortion = (assigned: number, share: number): number =>
  Math.abs(Math.log2(assigned / Math.max(share, 1e-6)));

interface Entry {
  comm: number;
  skew: number;
  /** Σ stage GPUs²: among otherwise equal splits, the evener one (smaller groups, cheaper collectives). */
  spread: number;
  /** Layer index where this stage starts, and the GPU sum before it (for backtracking). */
  start: number;
  prevSum: number;
}

type Score = Pick<Entry, 'comm' | 'skew' | 'spread'>;

const better = (a: Score, b: Score | undefined): boolean => {
  if (!b) return true;
  const tolerance = 1e-9 * Math.max(1, Math.abs(a.comm), Math.abs(b.comm));
  if (a.comm < b.comm - tolerance) return true;
  if (a.comm > b.comm + tolerance) return false;
  if (a.skew < b.skew - 1e-9) return true;
  if (a.skew > b.skew + 1e-9) return false;
  return a.spread < b.spread;
};

/**
 * Splits `layers` into `stages` contiguous stages for `gpus` GPUs, or undefined when it cannot (more stages
 * than layers or GPUs, or GPU counts that no power-of-two split sums to).
 */
export const determineStages = (
  layers: readonly StageChainLayer[],
  gpus: number,
  stages: number,
): StageAssignment | undefined => {
  const n = layers.length;
  if (!(Number.isInteger(stages) && stages >= 1 && stages <= n && stages <= gpus)) return undefined;
  const shares = fractionalGpus(layers, gpus);
  const prefix = [0];
  for (const s of shares) prefix.push(prefix[prefix.length - 1]! + s);
  const share = (i: number, j: number): number => prefix[j]! - prefix[i]!;
  const cutAfter = (j: number): number => (j < n ? layers[j - 1]!.outputBytes : 0);

  // table[k][j]: map from GPU sum → best split of layers [0, j) into k stages.
  const table: Map<number, Entry>[][] = Array.from({ length: stages + 1 }, () =>
    Array.from({ length: n + 1 }, () => new Map<number, Entry>()),
  );
  table[0]![0]!.set(0, { comm: 0, skew: 0, spread: 0, start: -1, prevSum: -1 });
  for (let k = 1; k <= stages; k++) {
    const lastStage = k === stages;
    for (let j = k; j <= n - (stages - k); j++) {
      if (lastStage && j !== n) continue;
      const cell = table[k]![j]!;
      for (let i = k - 1; i < j; i++) {
        const assigned = roundToPowerOfTwo(share(i, j));
        const cut = lastStage ? 0 : cutAfter(j);
        for (const [sum, prev] of table[k - 1]![i]!) {
          const total = sum + assigned;
          if (total > 2 * gpus) continue;
          const candidate = {
            comm: prev.comm + cut,
            skew: prev.skew + distortion(assigned, share(i, j)),
            spread: prev.spread + assigned * assigned,
          };
          if (better(candidate, cell.get(total))) cell.set(total, { ...candidate, start: i, prevSum: sum });
        }
      }
    }
  }
  const finals = table[stages]![n]!;
  const exact = finals.get(gpus);
  if (exact) return backtrack(table, stages, n, gpus, share);
  let chosen: number | undefined;
  for (const [sum, e] of finals) if (chosen === undefined || better(e, finals.get(chosen))) chosen = sum;
  if (chosen === undefined) return undefined;
  const split = backtrack(table, stages, n, chosen, share);
  return repair(split, gpus, share, n);
};

const backtrack = (
  table: Map<number, Entry>[][],
  stages: number,
  n: number,
  sum: number,
  share: (i: number, j: number) => number,
): StageAssignment => {
  const stageGpus: number[] = [];
  const stageLayers: number[] = [];
  let j = n;
  let s = sum;
  for (let k = stages; k >= 1; k--) {
    const e = table[k]![j]!.get(s)!;
    stageLayers.unshift(e.start);
    stageGpus.unshift(roundToPowerOfTwo(share(e.start, j)));
    j = e.start;
    s = e.prevSum;
  }
  return { stageGpus, stageLayers };
};

/** Power-of-two repair of a split whose rounded GPU counts do not sum to `gpus`; undefined when impossible. */
const repair = (
  split: StageAssignment,
  gpus: number,
  share: (i: number, j: number) => number,
  layerCount: number,
): StageAssignment | undefined => {
  const starts = split.stageLayers;
  const shares = starts.map((start, k) => share(start, starts[k + 1] ?? layerCount));
  const counts = [...split.stageGpus];
  const ratio = (k: number): number => counts[k]! / Math.max(shares[k]!, 1e-6);
  let sum = counts.reduce((s, c) => s + c, 0);
  while (sum > gpus) {
    let pick = -1;
    for (let k = 0; k < counts.length; k++)
      if (counts[k]! > 1 && (pick < 0 || ratio(k) > ratio(pick))) pick = k;
    if (pick < 0) return undefined;
    counts[pick] = halfFloor(counts[pick]!); // a power of two > 1: exact
    sum -= counts[pick]!;
  }
  while (sum < gpus) {
    let pick = -1;
    for (let k = 0; k < counts.length; k++)
      if (sum + counts[k]! <= gpus && (pick < 0 || ratio(k) < ratio(pick))) pick = k;
    if (pick < 0) return undefined;
    sum += counts[pick]!;
    counts[pick] = counts[pick]! * 2;
  }
  return { stageGpus: counts, stageLayers: starts };
};
