/**
 * Work of a Pollux/Sia workload job from its application's training curves (`pollux/<app>/validation-<B>.csv`), by
 * the rule of the Pollux artifact (petuum/adaptdl `simulator/applications.py`, `simulator.py`; summarised in the
 * shared data's NOTICE.md, "Pollux applications"). Pure.
 */

/** One `validation-<batchSize>.csv`: per-epoch rows, 0-based. */
export interface PolluxCurve {
  readonly batchSize: number;
  /** Statistical progress at the end of each epoch. */
  readonly progress: readonly number[];
  readonly gradSqr: readonly number[];
  readonly gradVar: readonly number[];
}

/** An application's curves, one per validated batch size (any order). */
export interface PolluxApplicationCurves {
  readonly application: string;
  readonly curves: readonly PolluxCurve[];
}

/** Epochs each application trains for in the artifact (`APPLICATIONS[...]`, `max_epochs`). */
export const POLLUX_MAX_EPOCHS: Readonly<Record<string, number>> = {
  bert: 2,
  cifar10: 100,
  ncf: 10,
  imagenet: 90,
  deepspeech2: 80,
  yolov3: 50,
};

/**
 * Optimizer steps at global batch `batchSize` that take the job from progress 0 to `P_end`, the artifact's
 * completion: `P_end = min over batch sizes of progress[max_epochs − 1]`; epoch `e` spans
 * `[end(e − 1), end(e))` with `end(e) = min over batch sizes of progress[e]`; each step in epoch `e` adds
 * `gain = (var + sqr) / (var / (B / B0) + sqr)`, `B0` the smallest validated batch size and `sqr`, `var` the epoch's
 * `grad_sqr`, `grad_var` interpolated linearly in `B` between the two nearest validated batch sizes. A batch outside
 * the validated range takes the nearest curve's statistics (the artifact asserts it never happens). Returns
 * undefined when the curves cannot answer (no curves, no epochs, an unknown application).
 */
export const polluxIterations = (app: PolluxApplicationCurves, batchSize: number): number | undefined => {
  const curves = [...app.curves].sort((a, b) => a.batchSize - b.batchSize);
  const maxEpochs = POLLUX_MAX_EPOCHS[app.application];
  if (curves.length === 0 || maxEpochs === undefined || !(batchSize > 0)) return undefined;
  if (curves.some((c) => c.progress.length < maxEpochs)) return undefined;
  const b0 = curves[0]!.batchSize;
  const epochEnd = (e: number): number => Math.min(...curves.map((c) => c.progress[e]!));
  let steps = 0;
  let start = 0;
  for (let e = 0; e < maxEpochs; e++) {
    const end = epochEnd(e);
    const { sqr, variance } = gradientStats(curves, batchSize, e);
    const gain = (variance + sqr) / (variance / (batchSize / b0) + sqr);
    if (end > start) steps += (end - start) / gain;
    start = Math.max(start, end);
  }
  return steps;
};

/** `grad_sqr[e]`, `grad_var[e]` at batch `b`, linear between the two nearest validated batch sizes. */
const gradientStats = (
  curves: readonly PolluxCurve[],
  b: number,
  e: number,
): { sqr: number; variance: number } => {
  let lower = curves[0]!;
  let upper = curves.at(-1)!;
  for (const c of curves) {
    if (c.batchSize <= b) lower = c;
    if (c.batchSize >= b) {
      upper = c;
      break;
    }
  }
  if (b <= curves[0]!.batchSize) upper = lower = curves[0]!;
  if (b >= curves.at(-1)!.batchSize) upper = lower = curves.at(-1)!;
  if (lower === upper) return { sqr: lower.gradSqr[e]!, variance: lower.gradVar[e]! };
  const t = (b - lower.batchSize) / (upper.batchSize - lower.batchSize);
  return {
    sqr: lower.gradSqr[e]! + t * (upper.gradSqr[e]! - lower.gradSqr[e]!),
    variance: lower.gradVar[e]! + t * (upper.gradVar[e]! - lower.gradVar[e]!),
  };
};
