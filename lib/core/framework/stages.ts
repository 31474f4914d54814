import type { Cluster, Host } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import type { JobSpec, JobState } from '../model/job.ts';
import type { PerfModel } from '../model/perf.ts';
import type { Allocation, Cell, Plan } from '../model/plan.ts';
import type { SchedulerState } from '../model/state.ts';
import type { Level } from '../model/topology.ts';
import type { ElasticDemand } from '../plugins/easyscale/demand.ts';
import type { FreeGpus } from './free-gpus.ts';
import type { RoundMemo } from './round-memo.ts';
import type { RoundScratch } from './scratch.ts';

/** Tunables of a round. Every stage reads what it needs; policies override defaults. */
export interface RoundConfig {
  /** Seconds between scheduled rounds (the shells' timer). */
  readonly roundSeconds: number;
  /** Estimated seconds to checkpoint and restore a job: the price of a preemption or migration. */
  readonly restartSeconds: number;
  /** Seed for any randomised stage. */
  readonly seed: number;
}

export const DEFAULT_ROUND_CONFIG: RoundConfig = { roundSeconds: 60, restartSeconds: 30, seed: 0 };

/** Everything a stage may read during a round. Pure data; no clock, no I/O. */
export interface RoundContext {
  readonly now: number;
  readonly cluster: Cluster;
  readonly perf: PerfModel;
  readonly config: RoundConfig;
  readonly state: SchedulerState;
  readonly hostOf: (hostId: string) => Host | undefined;
  /** GPU types present in the cluster (usable hosts): total GPUs and the largest host's GPU count. */
  readonly capacity: ReadonlyMap<GpuTypeId, TypeCapacity>;
  /** Per-round data stages share (computed once per round, gone after it). */
  readonly scratch: RoundScratch;
  /** Derived data carried between rounds by the shell (pure in its keys: warm or cold, the same plan). */
  readonly memo: RoundMemo;
}

export interface TypeCapacity {
  readonly gpus: number;
  readonly largestHost: number;
}

/** What the allocation stage gives a job: how many GPUs of which type (and for Crius, the Cell). */
export interface Demand {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly cell?: Cell;
  /** Worst consolidation level the job accepts this round (Dally timers, Tiresias skew). */
  readonly maxLevel?: Level;
  /**
   * EasyScale plan of an elastic job: GPUs per type (possibly several types) and ESTs per GPU of each type. `gpuType`
   * and `gpus` then name the type holding most of its GPUs and the total; only an elastic placement stage
   * (lib/core/plugins/easyscale/tier.ts) places it.
   */
  readonly elastic?: ElasticDemand;
}

/**
 * Optional on every stage: fold what the round decided into the scheduler state (Dally's auto-tuner records how
 * long each job waited before it accepted an offer). `scheduleRound` calls it after pack and migrate with the final
 * plan, stage by stage in pipeline order, `ctx.state` being the state as updated so far. Pure.
 */
export interface StateContribution {
  nextState?(ordered: readonly JobState[], plan: Plan, ctx: RoundContext): SchedulerState;
}

/** QueueSort: every active job, most important first. Ties must be broken deterministically. */
export interface OrderStage extends StateContribution {
  readonly name: string;
  order(jobs: readonly JobState[], ctx: RoundContext): JobState[];
}

/** Admission + sizing: which jobs get GPUs this round and how many of which type, in priority order. */
export interface AllocateStage extends StateContribution {
  readonly name: string;
  allocate(ordered: readonly JobState[], ctx: RoundContext): Map<string, Demand>;
  /**
   * Optional admission control before ordering: jobs to end now, with the reason (Crius-DDL and ElasticFlow drop
   * jobs whose deadline cannot be met; Crius drops jobs no Cell of which fits in memory). They get a `stop`
   * with reason `unschedulable`. Pure.
   */
  reject?(jobs: readonly JobState[], ctx: RoundContext): readonly Rejection[];
  /**
   * Optional: the GPU counts this stage may give a waiting job. The round ends as `unschedulable` a job whose
   * estimated throughput is zero at each of them on every allowed type, so that it never holds GPUs without
   * progress. Absent: the requested count, unless the stage has `reject`, which then decides alone which jobs it
   * can never run (Crius: no Cell of the job has a positive rate). A function of the spec and the cluster's capacity
   * only: the round memoises its answer across rounds (lib/core/framework/round-memo.ts).
   */
  sizes?(spec: JobSpec, ctx: RoundContext): readonly number[];
  /**
   * Optional: the most GPUs this stage may ever give the job, whatever the fleet (Crius with count scaling: twice
   * the request). The AWS shell fixes a job's logical size (its EST count) to this at its first placement, so every
   * size the stage may later choose can resume the job's checkpoints. Absent: the request (elastic: maxP).
   */
  largestSize?(spec: JobSpec): number;
  /**
   * Optional: the fewest GPUs this stage may start the job on when it is admitted (Crius with count scaling: half
   * the request), so that a waiting job's reason does not claim it needs its whole request. Absent: the request.
   */
  smallestSize?(spec: JobSpec): number;
}

export interface Rejection {
  readonly jobId: string;
  readonly reason: string;
}

/** Concrete GPUs for the admitted demands. Jobs it cannot place stay queued. */
export interface PlaceStage extends StateContribution {
  readonly name: string;
  place(
    ordered: readonly JobState[],
    demands: ReadonlyMap<string, Demand>,
    free: FreeGpus,
    ctx: RoundContext,
  ): Map<string, Allocation>;
  /**
   * Optional, for users: why a job this stage left waiting although enough GPUs of its type were free — the delay
   * timer holding out for a better-consolidated offer (Dally). Called once per round to get a per-job lookup. Pure.
   */
  holds?(ctx: RoundContext): (job: JobState, demand: Demand) => DelayHold | undefined;
}

/** A delay timer holding a job back: the level it still insists on, and for how many more seconds (Infinity = ever). */
export interface DelayHold {
  readonly level: 'machine' | 'rack';
  readonly seconds: number;
}

/** Co-locate waiting jobs onto placed jobs' GPUs. */
export interface PackStage extends StateContribution {
  readonly name: string;
  pack(
    ordered: readonly JobState[],
    plan: Map<string, Allocation>,
    free: FreeGpus,
    ctx: RoundContext,
  ): Map<string, Allocation>;
}

/**
 * Decide which jobs move: relabel the new plan onto physical GPUs so that as few jobs as possible move (Tesserae), or
 * move jobs to better-consolidated free GPUs (Gandiva's introspection). `free` holds what the plan leaves unused, on
 * entry and, for the returned plan, on exit.
 */
export interface MigrateStage extends StateContribution {
  readonly name: string;
  relabel(
    ordered: readonly JobState[],
    plan: Map<string, Allocation>,
    free: FreeGpus,
    ctx: RoundContext,
  ): Map<string, Allocation>;
}

/** A named composition of stages. */
export interface Policy {
  readonly name: string;
  readonly description: string;
  readonly order: OrderStage;
  readonly allocate: AllocateStage;
  readonly place: PlaceStage;
  readonly pack?: PackStage;
  readonly migrate?: MigrateStage;
  readonly config?: Partial<RoundConfig>;
}
