import type { Policy } from '../../framework/stages.ts';
import { arrivalOrder } from '../baselines/fifo.ts';
import { keepThenFit } from '../baselines/keep-then-fit.ts';
import { BASELINE_POLICIES } from '../baselines/policies.ts';
import { type CriusAllocateOptions, criusAllocate } from './allocate.ts';
import { CellEstimator } from './estimator.ts';

/**
 * Crius (specs/crius.md): Cell-based scheduling with agile Cell estimation, and its ablations and deadline
 * variant. One estimator is shared by the four policies, so its memoised estimates serve them all.
 */
export const CRIUS_ESTIMATOR = new CellEstimator();

export const DEFAULT_CRIUS_OPTIONS: Omit<CriusAllocateOptions, 'name'> = {
  countScaling: true,
  typeScaling: true,
  deadlines: false,
  depth: 3,
  choiceBudget: 20_000,
  breadth: 12,
  minScaleUpGain: 0.1,
  opportunistic: true,
  estimator: CRIUS_ESTIMATOR,
};

/** A Crius composition: arrival order, the Cell-based allocation, consolidated placement that keeps what it can. */
export const criusPolicy = (
  name: string,
  description: string,
  overrides: Partial<CriusAllocateOptions> = {},
): Policy => ({
  name,
  description,
  order: arrivalOrder,
  allocate: criusAllocate({ ...DEFAULT_CRIUS_OPTIONS, ...overrides, name }),
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
});

const crius = criusPolicy(
  'crius',
  'Crius: Cells (GPU type × count {N/2, N, 2N} × pipeline stages) estimated from layer chains (DP/TP assembly, pipeline formula, calibrated from observed throughput); Algorithm 1 scaling search (depth 3) maximising normalised throughput; opportunistic execution; consolidated placement.',
);

const criusNa = criusPolicy(
  'crius-na',
  'Crius without adaptivity scaling (ablation): every job keeps its requested GPU count; type and stages still chosen by Cells.',
  { countScaling: false },
);

const criusNh = criusPolicy(
  'crius-nh',
  'Crius without heterogeneity scaling (ablation): every job stays on its requested (or first) GPU type; count and stages still chosen by Cells.',
  { typeScaling: false },
);

const criusDdl = criusPolicy(
  'crius-ddl',
  'Deadline-aware Crius: admits a job only with a Cell that finishes it by its deadline, never moves an admitted deadline job onto a Cell that misses it, and drops early the jobs no Cell can finish in time.',
  { deadlines: true },
);

const fifo = BASELINE_POLICIES.find((p) => p.name === 'fifo');
if (!fifo) throw new Error('policies: the fifo baseline is missing');

/** The Crius paper's FCFS baseline is Tessera's `fifo`. */
const fcfs: Policy = {
  ...fifo,
  name: 'fcfs',
  description: `Alias of fifo (the Crius paper's FCFS baseline). ${fifo.description}`,
};

export const CRIUS_POLICIES: readonly Policy[] = [crius, criusNa, criusNh, criusDdl, fcfs];
