import type { StepTime } from './pollux.ts';

/**
 * Pollux's gradient accumulation (shared NOTICE.md, "Pollux applications"; petuum/adaptdl `simulator/`): a per-GPU
 * batch above the largest local batch the application was measured at runs as `accum + 1` micro-steps of at most
 * that batch, `accum = ⌈local ÷ max⌉ − 1`, each extra micro-step costing the step time less its synchronisation
 * (gradients are all-reduced once per step). `stepAt` gives the measured step time of a local batch, or undefined.
 */
export const accumulatedStep = (
  localBatch: number,
  maxLocalBatch: number,
  stepAt: (localBatch: number) => StepTime | undefined,
): StepTime | undefined => {
  if (localBatch <= maxLocalBatch) return stepAt(localBatch);
  const accum = Math.ceil(localBatch / maxLocalBatch) - 1;
  const micro = stepAt(Math.ceil(localBatch / (accum + 1)));
  if (!micro) return undefined;
  return { stepTime: micro.stepTime + accum * (micro.stepTime - micro.syncTime), syncTime: micro.syncTime };
};
