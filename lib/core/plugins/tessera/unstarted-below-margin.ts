import { isHolding } from '../../framework/compare.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import type { CellConfig, JobCells } from '../crius/job-cells.ts';
import { orderIndex } from '../tesserae/order-index.ts';
import { modelError } from './trial-value.ts';

type ScaleUpRule = (
  ordered: readonly JobState[],
  ctx: RoundContext,
) => (jobId: string, from: CellConfig, to: CellConfig, cells: JobCells) => boolean;

export interface UnstartedBelowMarginOptions {
  /** Crius's gain margin for moving a running job (the estimate's error). */
  readonly margin: number;
  /** The model's error σ before the calibration has seen much, and its weight in observations (`modelError`). */
  readonly priorError: number;
  readonly priorWeight: number;
  /** A job's remaining iterations. */
  readonly remaining: (job: JobState) => number;
}

const jobAt = (ordered: readonly JobState[], index: ReadonlyMap<string, number>, jobId: string) => {
  const at = index.get(jobId);
  return at === undefined ? undefined : ordered[at];
};

/**
 * Crius's 10 % margin for a scale-up is the estimate's error, and its reason is the cost of being wrong about a job
 * that runs: it is measured where it runs and only estimated elsewhere, and a move costs a restart (and another when
 * the next arrivals take the Cell back). A job admitted this round is measured nowhere: every Cell it may start on is
 * an estimate with the same error, and the larger one costs no restart. So it takes the Cell the estimate rates faster
 * whenever that is worth it in expectation for good (no trial takes it back when it turns out slower): with
 * Z = ln(true rate there ÷ true rate here) ~ N(x, σ²), x = ln(estimate ÷ estimate), σ the model's error
 * (`trial-value.ts`), staying saves E[1 − e^(−Z)] = 1 − e^(−x + σ²/2) of its remaining time, which must beat the
 * restart it pays when the next arrivals take the Cell back. Gavel's max_min_fairness.trace on aws-mixed, seed 1,
 * noise 2: a 1-GPU lstm-lm of 10 k s started on 1 A100 where 2 A100s were rated 9 % faster — inside the margin — and
 * stayed there (JCT 17,865 s, the run's p99; Crius, which had learned V100s early, ran it on 2 V100s in 14,636 s).
 */
export const unstartedMargin =
  (o: UnstartedBelowMarginOptions) =>
  (ordered: readonly JobState[], ctx: RoundContext): ((jobId: string) => number) => {
    let index: ReadonlyMap<string, number> | undefined;
    return (jobId) => {
      index ??= orderIndex(ordered, ctx);
      const job = jobAt(ordered, index, jobId);
      return job !== undefined && !isHolding(job) ? 0 : o.margin;
    };
  };

/** `inner`, and below the margin (jobs not started yet only, `unstartedMargin`) the expected saving for good. */
export const unstartedBelowMarginPays =
  (inner: ScaleUpRule, o: UnstartedBelowMarginOptions): ScaleUpRule =>
  (ordered, ctx) => {
    const pays = inner(ordered, ctx);
    let index: ReadonlyMap<string, number> | undefined;
    let sigma: number | undefined;
    return (jobId, from, to, cells) => {
      if (!pays(jobId, from, to, cells)) return false;
      if (to.value - from.value > o.margin * from.value) return true;
      index ??= orderIndex(ordered, ctx);
      const job = jobAt(ordered, index, jobId);
      if (!job || isHolding(job) || !(from.rate > 0) || !(to.rate > from.rate)) return false;
      sigma ??= modelError(ctx.state.cellCalibration?.efficiency, o.priorError, o.priorWeight);
      const x = Math.log(to.rate / from.rate);
      const saved = (o.remaining(job) / from.rate) * (1 - Math.exp(-x + (sigma * sigma) / 2));
      return saved > ctx.config.restartSeconds;
    };
  };
