import type { JobState } from '../../model/job.ts';
import type { CellConfig, JobCells } from './job-cells.ts';
import type { VirtualAllocation } from './virtual.ts';

/*
 * A rule the allocation asks before it admits a waiting job by taking GPUs from others (`CriusAllocateOptions.
 * takePays`; tessera's is `plugins/tessera/take-pays.ts`). Crius has none: every take its search or opportunistic
 * execution finds is made.
 */

/** GPUs taken from a job to admit another: it moves to `to` (a smaller count, another type) or is suspended. */
export interface Take {
  readonly jobId: string;
  readonly from: CellConfig;
  /** Undefined: suspended. */
  readonly to?: CellConfig | undefined;
}

/** What the test reads of the round's allocation at the moment of the choice. */
export interface TakeView {
  readonly vc: VirtualAllocation;
  readonly job: (jobId: string) => JobState | undefined;
  /** The Cells of a job (the admitted one, those waiting ahead). */
  readonly cellsOf: (job: JobState) => JobCells;
  /** Jobs ahead of the admitted one in the order that wait this round (they get GPUs that free first). */
  readonly waitingAhead: readonly JobState[];
}

export type TakeTest = (
  cells: JobCells,
  admit: CellConfig,
  takes: readonly Take[],
  view: TakeView,
) => boolean;
