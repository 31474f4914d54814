/**
 * EasyScale's analytic model of one EST-to-GPU plan (paper Eq. 1, with the per-GPU sum of the authors' artifact):
 *
 *   nEST       = Σ_i N_i·A_i ≥ maxP
 *   f_overload = max_{i: N_i>0} A_i / C_i                 seconds per global step: the slowest type sets the pace
 *   waste      = Σ_i N_i·(C_i − A_i/f_overload) + (nEST − maxP)/f_overload
 *   throughput = Σ_i N_i·C_i − waste  (= maxP / f_overload)   EST mini-batches per second
 *
 * N_i GPUs of type i, each able to run C_i EST mini-batches per second and given at most A_i ESTs.
 */

/** One GPU type of a plan. */
export interface TypeShare {
  /** N_i: GPUs of this type. */
  readonly gpus: number;
  /** C_i: EST mini-batches per second one GPU of this type runs. */
  readonly capability: number;
  /** A_i: ESTs each GPU of this type runs (at most). */
  readonly ests: number;
}

export interface Eq1Result {
  readonly nEst: number;
  /** Seconds of computation per global step (every EST did one mini-batch). */
  readonly fOverload: number;
  /** Capability lost to imbalance and to ESTs beyond maxP, in mini-batches per second. */
  readonly waste: number;
  /** waste / Σ N_i·C_i: the share of the GPUs' capability the plan throws away. */
  readonly wasteRatio: number;
  /** Σ N_i·C_i. */
  readonly capacity: number;
  /** EST mini-batches per second = maxP / f_overload. Global steps per second = 1 / f_overload. */
  readonly throughput: number;
}

/** Evaluates Eq. 1. Shares with no GPUs are ignored. Throws a RangeError naming the rule a plan breaks. */
export const evaluateEq1 = (maxP: number, shares: readonly TypeShare[]): Eq1Result => {
  if (!(Number.isInteger(maxP) && maxP > 0))
    throw new RangeError(`Eq. 1: maxP must be a positive integer, got ${maxP}`);
  let nEst = 0;
  let capacity = 0;
  let fOverload = 0;
  let used = 0;
  for (const [i, share] of shares.entries()) {
    if (!(Number.isInteger(share.gpus) && share.gpus >= 0))
      throw new RangeError(`Eq. 1: shares[${i}].gpus must be an integer ≥ 0, got ${share.gpus}`);
    if (share.gpus === 0) continue;
    if (!(Number.isInteger(share.ests) && share.ests >= 1))
      throw new RangeError(
        `Eq. 1: shares[${i}].ests must be an integer ≥ 1 on a type with GPUs, got ${share.ests}`,
      );
    if (!(Number.isFinite(share.capability) && share.capability > 0))
      throw new RangeError(`Eq. 1: shares[${i}].capability must be > 0, got ${share.capability}`);
    used++;
    nEst += share.gpus * share.ests;
    capacity += share.gpus * share.capability;
    fOverload = Math.max(fOverload, share.ests / share.capability);
  }
  if (used === 0) throw new RangeError('Eq. 1: a plan needs at least one GPU');
  if (nEst < maxP) throw new RangeError(`Eq. 1: nEST = ${nEst} must be ≥ maxP = ${maxP}`);
  let waste = (nEst - maxP) / fOverload;
  for (const share of shares) {
    if (share.gpus > 0) waste += share.gpus * (share.capability - share.ests / fOverload);
  }
  return {
    nEst,
    fOverload,
    waste,
    wasteRatio: waste / capacity,
    capacity,
    throughput: capacity - waste,
  };
};
