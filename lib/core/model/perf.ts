import type { GpuTypeId } from './gpu.ts';
import type { Cell } from './plan.ts';
import type { Level } from './topology.ts';

/** Where a job's GPUs sit: the consolidation level and how many hosts it spans. */
export interface PlacementShape {
  readonly level: Level;
  readonly hosts: number;
}

export interface ModelRef {
  readonly model: string;
  readonly batchSize: number;
}

export interface ThroughputQuery extends ModelRef {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly shape: PlacementShape;
  /** The job sharing these GPUs, if packed. */
  readonly partner?: ModelRef;
}

/** Where a figure came from: measured tables beat analytic models; `estimated` marks a fallback guess. */
export type EstimateSource = 'measured' | 'analytic' | 'estimated';

export interface ThroughputEstimate {
  /** Global iterations (steps) per second of the whole job. 0 = cannot run (e.g. out of memory). */
  readonly iterationsPerSecond: number;
  /** Seconds per iteration spent computing and, exposed, communicating. */
  readonly computeSeconds: number;
  readonly commSeconds: number;
  readonly source: EstimateSource;
}

/** Co-location of two jobs on the same GPUs: each one's throughput normalised by its throughput alone. */
export interface ColocationEstimate {
  readonly normalized: readonly [number, number];
  readonly source: EstimateSource;
  /** Pipeline split that made the pair fit (Blox data), to be fixed at launch. */
  readonly strategy?: string;
}

/** Throughput model used by the scheduler (estimates) and, with hidden truth, by the simulator's executor. */
export interface PerfModel {
  readonly name: string;
  throughput(query: ThroughputQuery): ThroughputEstimate;
  colocation(gpuType: GpuTypeId, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate;
  /**
   * Optional: throughput when the job runs the given Crius Cell (fixed pipeline stages, tuned data × tensor
   * split) rather than a plan of the model's own choosing. Executors that model adaptive parallelism implement
   * it (lib/core/plugins/crius/adaptive-perf.ts); the simulator asks it for jobs whose allocation carries a Cell.
   */
  cellThroughput?(query: ThroughputQuery, cell: Cell): ThroughputEstimate;
}
