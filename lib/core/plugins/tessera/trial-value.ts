/**
 * What trying a job on a GPU type its model never ran on is worth (`type-trials.ts`). The scheduler's rate there is an
 * estimate; the true rate is the estimate times an unknown efficiency, log-normal with the model's error σ. The job's
 * rate where it runs is measured. With Z = ln(true rate there ÷ measured rate here) ~ N(x, σ²), a trial that keeps
 * the faster of the two saves, in expectation, E[max(0, 1 − e^(−Z))] of the job's remaining time.
 */

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 for erf; absolute error < 1.5e-7). */
export const normalCdf = (z: number): number => {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
};

/**
 * E[max(0, 1 − e^(−Z))], Z ~ N(x, σ²): the expected fraction of the remaining time a trial saves when the job keeps
 * the faster type. Closed form: Φ(x/σ) − e^(−x + σ²/2) · Φ((x − σ²)/σ).
 */
export const expectedSavedFraction = (x: number, sigma: number): number => {
  if (!(sigma > 0)) return Math.max(0, 1 - Math.exp(-x));
  const saved =
    normalCdf(x / sigma) - Math.exp(-x + (sigma * sigma) / 2) * normalCdf((x - sigma * sigma) / sigma);
  return Math.max(0, saved);
};

/** P(Z < 0): the chance the tried type turns out slower and the job goes back. */
export const slowerChance = (x: number, sigma: number): number =>
  sigma > 0 ? normalCdf(-x / sigma) : x < 0 ? 1 : 0;

/**
 * The model's error σ (of ln(measured ÷ estimated)), from what the calibration learned: the RMS of the log
 * efficiency factors of every (model, GPU type) observed so far, shrunk towards `prior` with the weight of `weight`
 * observations (few observations say little about the spread).
 */
export const modelError = (
  efficiency: Readonly<Record<string, number>> | undefined,
  prior: number,
  weight: number,
): number => {
  let sum = prior * prior * weight;
  let n = weight;
  if (efficiency) {
    for (const key in efficiency) {
      const f = efficiency[key]!;
      if (!(f > 0)) continue;
      const l = Math.log(f);
      sum += l * l;
      n++;
    }
  }
  return n > 0 ? Math.sqrt(sum / n) : prior;
};
