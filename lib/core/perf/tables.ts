/**
 * Measured performance data as typed tables. The shell (`lib/data`) reads and checks the files in
 * `shared/data`; the core only ever receives these values. Sources and licences: shared/data/NOTICE.md.
 */

/** A Gavel job type: `ResNet-50 (batch size 64)` on `scale` GPUs (A3C and CycleGAN carry no batch size). */
export interface GavelJobType {
  /** Gavel's model name as written (`ResNet-50`, `LM`, `A3C`). */
  readonly model: string;
  /** Per-worker batch size. */
  readonly batchSize?: number;
  /** Number of workers (GPUs) of the data-parallel job. */
  readonly scale: number;
}

/**
 * One row of Gavel's `simulation_throughputs.json` (stanford-futuredata/gavel, MIT). Throughputs are
 * iterations per second **summed over the job's workers** (Gavel adds up every worker's steps), each worker
 * stepping on its own `batchSize` samples; the job's global iterations per second are `isolated / scale`.
 */
export interface GavelRecord {
  /** Gavel's worker type: `k80`, `p100`, `v100`. */
  readonly workerType: string;
  /** false for the `*_unconsolidated` sections: the workers run on different servers. */
  readonly consolidated: boolean;
  readonly job: GavelJobType;
  /** Throughput alone (Gavel's `null` key); 0 = not measured. */
  readonly isolated: number;
  /**
   * Throughputs co-located with a partner job on the same workers, `[this job, partner]`. `[0, 0]` at
   * scale 1 = the pair does not fit; Gavel measured no pairs at scale > 1 (all `[0, 0]`).
   */
  readonly pairs: readonly GavelPair[];
}

export interface GavelPair {
  readonly partner: GavelJobType;
  readonly throughputs: readonly [number, number];
}

export interface GavelThroughputTable {
  readonly records: readonly GavelRecord[];
}

/** One row of Pollux `placements.csv` (petuum/adaptdl osdi21-artifact, Apache-2.0). */
export interface PolluxPlacementRow {
  /** GPUs per node, one digit per node (`13` = 1 GPU on one node and 3 on another). */
  readonly placement: string;
  /** Per-GPU (per-replica) batch size. */
  readonly localBatchSize: number;
  /** Seconds per iteration, including `syncTime`. */
  readonly stepTime: number;
  /** Seconds of gradient synchronisation in the step. */
  readonly syncTime: number;
}

/** One row of Pollux `scalability.csv`: larger placements by node and replica count. */
export interface PolluxScalabilityRow {
  readonly nodes: number;
  readonly replicas: number;
  readonly localBatchSize: number;
  readonly stepTime: number;
  readonly syncTime: number;
}

export interface PolluxApplication {
  /** Pollux's application name: `bert`, `cifar10`, `deepspeech2`, `imagenet`, `ncf`, `yolov3`. */
  readonly name: string;
  readonly placements: readonly PolluxPlacementRow[];
  readonly scalability: readonly PolluxScalabilityRow[];
}

export interface PolluxTable {
  readonly applications: readonly PolluxApplication[];
}

/** A Blox batch cell: `64` (per-GPU batch of a data-parallel job) or `256/16` (global batch / micro-batch). */
export interface BloxBatch {
  readonly text: string;
  readonly size: number;
  readonly microBatch?: number;
}

/** One row of Blox `norm_speed.csv` (msr-fiddle/blox, MIT). */
export interface BloxRecord {
  readonly index: number;
  readonly model1: string;
  readonly dataset1: string;
  readonly gpus1: number;
  readonly batch1: BloxBatch;
  /** Normalised speed of job 1 (÷ its best speed alone); 0 = out of memory. */
  readonly speed1: number;
  /** Pipeline ranks the partner shares, as written (`0,1`), when job 1 is pipelined. */
  readonly coPipelineRank?: string;
  /** Layer split over pipeline stages (`10,14`), or `DP24`/`TP24`; undefined for `NA`. */
  readonly pipelineStrategy?: string;
  /** Undefined for `Empty` (job 1 alone). */
  readonly model2?: string;
  readonly dataset2?: string;
  readonly gpus2: number;
  readonly batch2?: BloxBatch;
  readonly speed2: number;
}

export interface BloxColocationTable {
  readonly records: readonly BloxRecord[];
}

/** Everything measured the composite model can use; each part is optional. */
export interface MeasuredTables {
  readonly gavel?: GavelThroughputTable;
  readonly pollux?: PolluxTable;
  readonly blox?: BloxColocationTable;
}
