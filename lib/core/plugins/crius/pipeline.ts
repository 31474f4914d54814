/**
 * The pipeline latency formula of Crius §5.1 (after Alpa/GPipe) and parallelism assembly: each stage picks one
 * of its profiled options (DP or TP for the estimator; any data × tensor split for the executor).
 *
 *   T_s  = C_s(p_s) + Comm_{s−1→s}(p_{s−1}, p_s)          (Comm_{0→1} = 0)
 *   T_it = Σ_s T_s + (M − 1)·(T_k − Comm_{k−1→k}) + max_s G_s(p_s),   k = argmax_s T_s
 *
 * C_s is the stage's time per micro-batch (compute + its tensor-parallel collectives), Comm the boundary
 * transfer, M the number of micro-batches and G_s the stage's once-per-iteration gradient all-reduce, which
 * the stages run concurrently after the last micro-batch. When several stages tie for the maximum T_s, k is
 * the one with the smallest C_s (the tie does not change which stage paces the pipeline).
 */

export interface PipelineProblem {
  /** Options per stage (2 for DP/TP assembly). */
  readonly options: readonly number[];
  readonly microBatches: number;
  /** C_s(o): seconds per micro-batch; Infinity when the option does not fit. */
  compute(stage: number, option: number): number;
  /** G_s(o): seconds per iteration. */
  gradSync(stage: number, option: number): number;
  /** Comm_{s−1→s}(a, b) for s ≥ 1. */
  comm(stage: number, prevOption: number, option: number): number;
}

export interface PipelinePlan {
  /** Option per stage. */
  readonly plan: readonly number[];
  readonly iterationSeconds: number;
}

/** T_it for per-stage C_s and Comm_{s−1→s} (comms[0] is ignored) and M micro-batches, without gradient sync. */
export const pipelineLatency = (
  computes: readonly number[],
  comms: readonly number[],
  microBatches: number,
): number => {
  let sum = 0;
  let kT = Number.NEGATIVE_INFINITY;
  let kC = 0;
  computes.forEach((c, s) => {
    const t = c + (s === 0 ? 0 : (comms[s] ?? 0));
    sum += t;
    if (t > kT || (t === kT && c < kC)) {
      kT = t;
      kC = c;
    }
  });
  return sum + (microBatches - 1) * kC;
};

/** T_it of one assembled plan. */
export const planLatency = (problem: PipelineProblem, plan: readonly number[]): number => {
  const computes = plan.map((o, s) => problem.compute(s, o));
  const comms = plan.map((o, s) => (s === 0 ? 0 : problem.comm(s, plan[s - 1]!, o)));
  const grad = Math.max(0, ...plan.map((o, s) => problem.gradSync(s, o)));
  return pipelineLatency(computes, comms, problem.microBatches) + grad;
};

/** Every plan of the product space (2^{N_S} for DP/TP assembly) with its latency; for small problems and tests. */
export const assemblePlans = (problem: PipelineProblem): PipelinePlan[] => {
  const out: PipelinePlan[] = [];
  const plan: number[] = [];
  const visit = (s: number): void => {
    if (s === problem.options.length) {
      out.push({ plan: [...plan], iterationSeconds: planLatency(problem, plan) });
      return;
    }
    for (let o = 0; o < problem.options[s]!; o++) {
      plan.push(o);
      visit(s + 1);
      plan.pop();
    }
  };
  visit(0);
  return out;
};

/**
 * The fastest plan, exactly, without enumerating the product space: for every candidate gradient-sync bound γ
 * and every candidate pacing stage k with its (p_{k−1}, p_k), a chain dynamic programme minimises Σ T_s under
 * T_s ≤ T_k and G_s ≤ γ. O(|γ| · Σ K_{s−1}K_s · Σ K_{s−1}K_s) — polynomial in the stage count.
 * Undefined when no plan fits.
 */
export const bestPlan = (problem: PipelineProblem): PipelinePlan | undefined => {
  const n = problem.options.length;
  if (n === 0) return undefined;
  const C: number[][] = [];
  const G: number[][] = [];
  for (let s = 0; s < n; s++) {
    C.push([]);
    G.push([]);
    for (let o = 0; o < problem.options[s]!; o++) {
      C[s]!.push(problem.compute(s, o));
      G[s]!.push(problem.gradSync(s, o));
    }
  }
  // Comm[s][a][b] for s ≥ 1.
  const K: number[][][] = [[]];
  for (let s = 1; s < n; s++) {
    const rows: number[][] = [];
    for (let a = 0; a < problem.options[s - 1]!; a++) {
      const row: number[] = [];
      for (let b = 0; b < problem.options[s]!; b++) row.push(problem.comm(s, a, b));
      rows.push(row);
    }
    K.push(rows);
  }
  const gammas = [...new Set(G.flatMap((g, s) => g.filter((_, o) => Number.isFinite(C[s]![o]!))))].sort(
    (a, b) => a - b,
  );
  let best: PipelinePlan | undefined;
  for (const gamma of gammas) {
    const allowed = (s: number, o: number): boolean => Number.isFinite(C[s]![o]!) && G[s]![o]! <= gamma;
    if (!C.every((row, s) => row.some((_, o) => allowed(s, o)))) continue;
    for (let k = 0; k < n; k++) {
      const prevOptions = k === 0 ? [-1] : range(problem.options[k - 1]!);
      for (const a of prevOptions) {
        if (a >= 0 && !allowed(k - 1, a)) continue;
        for (let b = 0; b < problem.options[k]!; b++) {
          if (!allowed(k, b)) continue;
          const tau = C[k]![b]! + (k === 0 ? 0 : K[k]![a]![b]!);
          const bound =
            (best?.iterationSeconds ?? Number.POSITIVE_INFINITY) -
            gamma -
            (problem.microBatches - 1) * C[k]![b]!;
          if (tau > bound) continue;
          const chain = minChain(n, problem.options, C, K, allowed, tau, k, a, b);
          if (!chain) continue;
          const total = chain.sum + (problem.microBatches - 1) * C[k]![b]! + gamma;
          if (!best || total < best.iterationSeconds) best = { plan: chain.plan, iterationSeconds: total };
        }
      }
    }
  }
  return best;
};

/** min Σ T_s over plans with every T_s ≤ τ and stages k−1, k fixed to a, b (a = −1 when k = 0). */
const minChain = (
  n: number,
  options: readonly number[],
  C: number[][],
  K: number[][][],
  allowed: (s: number, o: number) => boolean,
  tau: number,
  k: number,
  a: number,
  b: number,
): { sum: number; plan: number[] } | undefined => {
  const fixed = (s: number, o: number): boolean =>
    (s === k && o !== b) || (s === k - 1 && o !== a) ? false : allowed(s, o);
  let cost: number[] = [];
  const back: number[][] = [];
  for (let o = 0; o < options[0]!; o++)
    cost.push(fixed(0, o) && C[0]![o]! <= tau ? C[0]![o]! : Number.POSITIVE_INFINITY);
  back.push(cost.map(() => -1));
  for (let s = 1; s < n; s++) {
    const next: number[] = [];
    const from: number[] = [];
    for (let o = 0; o < options[s]!; o++) {
      let bestCost = Number.POSITIVE_INFINITY;
      let bestPrev = -1;
      if (fixed(s, o)) {
        for (let p = 0; p < options[s - 1]!; p++) {
          if (!Number.isFinite(cost[p]!)) continue;
          const t = C[s]![o]! + K[s]![p]![o]!;
          if (t > tau) continue;
          const c = cost[p]! + t;
          if (c < bestCost) {
            bestCost = c;
            bestPrev = p;
          }
        }
      }
      next.push(bestCost);
      from.push(bestPrev);
    }
    cost = next;
    back.push(from);
  }
  let end = -1;
  let sum = Number.POSITIVE_INFINITY;
  cost.forEach((c, o) => {
    if (c < sum) {
      sum = c;
      end = o;
    }
  });
  if (end < 0) return undefined;
  const plan = new Array<number>(n);
  for (let s = n - 1, o = end; s >= 0; s--) {
    plan[s] = o;
    o = back[s]![o]!;
  }
  return { sum, plan };
};

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
