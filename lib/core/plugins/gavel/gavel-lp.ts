import { LP_INFINITY, maximise, SOLVER_ATTEMPTS, type SolverSettings } from '../../solvers/lp-solver.ts';

/** A job of Gavel's program: its GPU count, priority weight and isolated throughput per GPU type (0 = cannot). */
export interface GavelJob {
  readonly gpus: number;
  readonly weight: number;
  readonly throughput: readonly number[];
}

/** Two jobs that may share GPUs: per GPU type, each one's normalised co-located speed (0 = not on that type). */
export interface GavelPair {
  readonly a: number;
  readonly b: number;
  readonly speedA: readonly number[];
  readonly speedB: readonly number[];
}

export interface GavelProblem {
  /** GPUs of each type. */
  readonly capacity: readonly number[];
  readonly jobs: readonly GavelJob[];
  readonly pairs: readonly GavelPair[];
}

export interface GavelAllocation {
  /** Time fraction of each job alone on each type: `single[m · types + t]`. */
  readonly single: Float64Array;
  /** Time fraction of each pair together on each type: `pair[p · types + t]`. */
  readonly pair: Float64Array;
  /** The max-min value: the smallest weighted normalised throughput of any job. */
  readonly minShare: number;
}

/**
 * Gavel's heterogeneity-aware max-min fairness with space sharing (Narayanan et al., OSDI '20, §4.1 "LAS" and
 * §4.3), as a linear program: choose time fractions X of every job alone and of every candidate pair together
 * on every GPU type, to maximise the smallest weighted normalised effective throughput
 *   ρ_m = Σ_t T[m][t]·x[m][t] + Σ_{pairs p ∋ m} Σ_t T[m][t]·s_m(p, t)·y[p][t], divided by w_m · norm_m,
 * where norm_m is the job's throughput under a capacity-proportional split over the types it can use,
 * subject to Σ_t x[m][t] + Σ y[p ∋ m][t] ≤ 1 per job and Σ gpus · (x + y) ≤ capacity per type.
 * A small secondary term (0.01/n · Σ ρ_m) spends capacity the minimum does not need, instead of leaving it to
 * the solver's choice of vertex. Solved with HiGHS (`attempts`: the solver settings tried in order, lp-solver.ts).
 */
export const solveMaxMinFairness = (
  problem: GavelProblem,
  attempts: readonly SolverSettings[] = SOLVER_ATTEMPTS,
): GavelAllocation => {
  const types = problem.capacity.length;
  const n = problem.jobs.length;
  const norm = problem.jobs.map((job, m) => {
    if (job.throughput.length !== types)
      throw new RangeError(`gavel LP: job ${m} has ${job.throughput.length} throughputs for ${types} types`);
    if (!(job.gpus > 0 && job.weight > 0))
      throw new RangeError(
        `gavel LP: job ${m} needs gpus > 0 and weight > 0, got ${job.gpus} and ${job.weight}`,
      );
    let usable = 0;
    let sum = 0;
    job.throughput.forEach((tp, t) => {
      if (tp > 0 && problem.capacity[t]! >= job.gpus) {
        usable += problem.capacity[t]!;
        sum += tp * problem.capacity[t]!;
      }
    });
    return usable > 0 ? sum / usable : 0;
  });
  if (!norm.some((v) => v > 0)) {
    // No job can run on any type: nothing to share (and the minimum would be unbounded).
    return {
      single: new Float64Array(n * types),
      pair: new Float64Array(problem.pairs.length * types),
      minShare: 0,
    };
  }
  const epsilon = 0.01 / Math.max(1, n);
  const jobRow = (m: number) => m;
  const typeRow = (t: number) => n + t;
  const fairRow = (m: number) => n + types + m;
  const rows = 2 * n + types;

  const cost: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  const start: number[] = [0];
  const index: number[] = [];
  const value: number[] = [];
  const addColumn = (c: number, entries: [number, number][], hi: number): number => {
    cost.push(c);
    lower.push(0);
    upper.push(hi);
    for (const [row, v] of entries) {
      index.push(row);
      value.push(v);
    }
    start.push(index.length);
    return cost.length - 1;
  };
  const fits = (m: number, t: number) => problem.capacity[t]! >= problem.jobs[m]!.gpus && norm[m]! > 0;
  /** ρ_m per unit of time on type t at relative speed s. */
  const rho = (m: number, t: number, s: number) => (problem.jobs[m]!.throughput[t]! * s) / norm[m]!;

  const singleColumn = new Int32Array(n * types).fill(-1);
  problem.jobs.forEach((job, m) => {
    for (let t = 0; t < types; t++) {
      if (!(job.throughput[t]! > 0) || !fits(m, t)) continue;
      const r = rho(m, t, 1);
      singleColumn[m * types + t] = addColumn(
        epsilon * r,
        [
          [jobRow(m), 1],
          [typeRow(t), job.gpus],
          [fairRow(m), -r / job.weight],
        ],
        1,
      );
    }
  });
  const pairColumn = new Int32Array(problem.pairs.length * types).fill(-1);
  problem.pairs.forEach((pair, p) => {
    const { a, b } = pair;
    if (a === b || problem.jobs[a]!.gpus !== problem.jobs[b]!.gpus)
      throw new RangeError(`gavel LP: pair ${p} must join two different jobs of equal GPU count`);
    for (let t = 0; t < types; t++) {
      const sa = pair.speedA[t] ?? 0;
      const sb = pair.speedB[t] ?? 0;
      if (!(sa > 0 && sb > 0) || !fits(a, t) || !fits(b, t)) continue;
      if (!(problem.jobs[a]!.throughput[t]! > 0 && problem.jobs[b]!.throughput[t]! > 0)) continue;
      const ra = rho(a, t, sa);
      const rb = rho(b, t, sb);
      pairColumn[p * types + t] = addColumn(
        epsilon * (ra + rb),
        [
          [jobRow(Math.min(a, b)), 1],
          [jobRow(Math.max(a, b)), 1],
          [typeRow(t), problem.jobs[a]!.gpus],
          [fairRow(Math.min(a, b)), -(a < b ? ra : rb) / problem.jobs[Math.min(a, b)]!.weight],
          [fairRow(Math.max(a, b)), -(a < b ? rb : ra) / problem.jobs[Math.max(a, b)]!.weight],
        ],
        1,
      );
    }
  });
  const z = addColumn(
    1,
    problem.jobs.map((_, m) => [fairRow(m), 1] as [number, number]),
    LP_INFINITY,
  );

  const rowLower = new Float64Array(rows).fill(-LP_INFINITY);
  const rowUpper = new Float64Array(rows);
  for (let m = 0; m < n; m++) {
    rowUpper[jobRow(m)] = 1;
    // A job no type can run takes no part in the minimum.
    rowUpper[fairRow(m)] = norm[m]! > 0 ? 0 : LP_INFINITY;
  }
  for (let t = 0; t < types; t++) rowUpper[typeRow(t)] = problem.capacity[t]!;

  const solution = maximise(
    {
      columns: cost.length,
      rows,
      cost: Float64Array.from(cost),
      columnLower: Float64Array.from(lower),
      columnUpper: Float64Array.from(upper),
      rowLower,
      rowUpper,
      columnStart: Int32Array.from(start),
      rowIndex: Int32Array.from(index),
      value: Float64Array.from(value),
    },
    attempts,
  );
  const read = (columns: Int32Array) =>
    Float64Array.from(columns, (c) => (c >= 0 ? Math.min(1, Math.max(0, solution[c]!)) : 0));
  return { single: read(singleColumn), pair: read(pairColumn), minShare: solution[z]! };
};
