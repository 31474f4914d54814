// Tessera's own slice of SchedulerState (typeTrials; the persisted shape is lib/core/model/state.ts's).
import type { GpuTypeId } from '../../model/gpu.ts';
import type { Cell } from '../../model/plan.ts';

/** A running job tried on a GPU type its model never ran on (`type-trials.ts`), until it is measured there. */
export interface TypeTrial {
  /** The type it was tried on. */
  readonly to: GpuTypeId;
  /**
   * The count it was tried at, where it is not the count it held: a move below the scale-up margin to a Cell of a
   * type its model has run on (`type-trials.ts`).
   */
  readonly gpus?: number;
  /** Where it ran before, and its measured rate there (iterations per second): it goes back if the trial is slower. */
  readonly from: {
    readonly gpuType: GpuTypeId;
    readonly gpus: number;
    readonly cell: Cell;
    readonly rate: number;
  };
}

export interface TypeTrialState {
  /** Per job id, its open trial. */
  readonly jobs: Readonly<Record<string, TypeTrial>>;
  /**
   * When the next round can judge a trial: the round after the one that put its job on the tried Cell, where it is
   * measured. Absent when every open trial's job shares GPUs there (not judged until the plan unpacks it): the
   * simulator runs periodic rounds for trials only while this is set.
   */
  readonly judgeAt?: number;
}

/**
 * Per job id, the Cells (`type|gpus`) it has run on or been tried on below the scale-up margin (`type-trials.ts`):
 * measured there, they are no longer a trial. Kept apart from `TypeTrialState`, whose presence keeps the simulator's
 * periodic rounds going.
 */
export type TriedCells = Readonly<Record<string, readonly string[]>>;
