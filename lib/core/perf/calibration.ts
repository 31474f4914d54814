import type { AnalyticPerfModel } from './analytic.ts';
import type { SingleGpuPoint } from './gavel.ts';

/**
 * Per-model compute-time multipliers that make the analytic model agree, on average, with measured
 * single-GPU step times — so that estimates for GPU types nobody measured keep the measured level and
 * only borrow the analytic model's ratio between types.
 *
 * For each model the reference is the measured GPU type with the highest peak (the one closest to the
 * tensor-core GPUs the analytic model mostly serves: V100 for Gavel, T4 for Pollux); the multiplier is the
 * geometric mean over its batch sizes of measured ÷ analytic (uncalibrated) seconds per iteration.
 */
export const calibrateComputeScale = (
  points: readonly SingleGpuPoint[],
  analytic: AnalyticPerfModel,
): Record<string, number> => {
  const byModel = new Map<string, SingleGpuPoint[]>();
  for (const p of points) {
    if (!(p.stepSeconds > 0 && p.localBatch > 0)) continue;
    const list = byModel.get(p.model);
    if (list) list.push(p);
    else byModel.set(p.model, [p]);
  }
  const scale: Record<string, number> = {};
  for (const [model, list] of byModel) {
    const peak = (type: string): number => analytic.catalog.gpu(type).peakTflops;
    const reference = list.reduce((best, p) => (peak(p.gpuType) > peak(best.gpuType) ? p : best)).gpuType;
    const profile = analytic.catalog.model(model);
    const gpu = analytic.catalog.gpu(reference);
    const logs = list
      .filter((p) => p.gpuType === reference)
      .map((p) => Math.log(p.stepSeconds / analytic.uncalibratedComputeSeconds(profile, gpu, p.localBatch)));
    scale[model] = Math.exp(logs.reduce((s, v) => s + v, 0) / logs.length);
  }
  return scale;
};
