import type { GpuCounts } from '../../../../../lib/core/plugins/easyscale/counts.ts';
import type { ElasticJobModel } from '../../../../../lib/core/plugins/easyscale/job-model.ts';

/** A transparent intra-job model for unit tests: given capabilities (C_i), optional synchronisation cost per plan. */
export const jobModel = (
  capability: Record<string, number>,
  maxP: number,
  options: { homogeneous?: boolean; minGpus?: number; sync?: (counts: GpuCounts) => number } = {},
): ElasticJobModel => ({
  maxP,
  minGpus: options.minGpus ?? 1,
  capability: new Map(Object.entries(capability).sort((a, b) => b[1] - a[1])),
  homogeneous: options.homogeneous ?? false,
  syncSeconds: options.sync ?? (() => 0),
});
