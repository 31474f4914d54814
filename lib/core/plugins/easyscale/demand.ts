import type { GpuCounts } from './counts.ts';
import type { ElasticReason } from './inter-job.ts';

/** What the elastic tier asks the placement stage for (`Demand.elastic`). */
export interface ElasticDemand {
  /** N_i: GPUs per type. */
  readonly counts: GpuCounts;
  /** A_i: ESTs per GPU of each type, at most. */
  readonly estsPerGpu: GpuCounts;
  readonly reason: ElasticReason;
}
