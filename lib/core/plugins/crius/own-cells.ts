import type { JobState } from '../../model/job.ts';
import type { HeldJob } from './held-job.ts';
import type { CellConfig, JobCells, SharedCells } from './job-cells.ts';
import type { ShapeCells, SharedConfigs } from './shared-cells.ts';

/** The job's own Cell where its own ratio was observed (not the one it holds), and its index in the shared list. */
export type Elsewhere = (
  shared: SharedConfigs,
  current: CellConfig | undefined,
) => { readonly index: number; readonly config: CellConfig } | undefined;

/**
 * A job's Cells made from the Cells every job of its shape shares this round: the shared list with the Cell the job
 * holds (`current`) in place of the entry of its type and count, and the Cell its own ratio was observed on
 * (`elsewhere`) in place of that one. The job's own sorted list is made only when something reads `configs`: most
 * rounds every job runs and nothing reads more than its held Cell and, in the scale-up pass, `shared`.
 */
export class OwnCells implements JobCells {
  private made: readonly CellConfig[] | undefined;
  /** Set when the held Cell is the only difference (see `JobCells.shared`). */
  readonly shared: SharedCells | undefined;

  constructor(
    readonly job: JobState,
    readonly reference: number,
    readonly current: CellConfig | undefined,
    private readonly all: ShapeCells,
    /** Finds the job's own Cell where its own ratio was observed; undefined when that is the held Cell or none. */
    private readonly elsewhere?: Elsewhere,
    /** The job's allocation record, when the caller looked it up (`nextState` reads its held Cell there). */
    readonly heldRecord?: HeldJob,
  ) {
    this.shared = elsewhere ? undefined : all;
  }

  get configs(): readonly CellConfig[] {
    this.made ??= this.make();
    return this.made;
  }

  private make(): readonly CellConfig[] {
    const { current } = this;
    const list = this.all.list();
    const shared = list.configs;
    let configs: CellConfig[] | undefined;
    if (current) {
      const at = indexOfTypeAndCount(shared, current);
      if (at >= 0) {
        configs = [...shared];
        configs[at] = current;
      }
    }
    const elsewhere = this.elsewhere?.(list, current);
    if (elsewhere) {
      configs ??= [...shared];
      configs[elsewhere.index] = elsewhere.config;
    }
    if (!configs) return shared;
    sortNearlySorted(configs);
    return configs;
  }
}

/** Index of the entry of `list` with `config`'s GPU type and count (a job has one Cell per type and count), or -1. */
export const indexOfTypeAndCount = (
  list: readonly CellConfig[],
  config: Pick<CellConfig, 'gpuType' | 'gpus'>,
): number => {
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (c.gpuType === config.gpuType && c.gpus === config.gpus) return i;
  }
  return -1;
};

/** Best value first, then fewer GPUs, then the type's name: a total order on a job's Cells. */
export const byValue = (a: CellConfig, b: CellConfig): number =>
  b.value - a.value || a.gpus - b.gpus || (a.gpuType < b.gpuType ? -1 : 1);

/**
 * `configs.sort(byValue)` for an array sorted but for one or two replaced entries, by insertion (a few comparisons
 * instead of a general sort per job and round). `byValue` is a total order on a job's Cells (no two share type and
 * count), so the result is the one any sort gives.
 */
export const sortNearlySorted = (configs: CellConfig[]): void => {
  for (let i = 1; i < configs.length; i++) {
    const c = configs[i]!;
    let j = i - 1;
    if (byValue(configs[j]!, c) <= 0) continue;
    while (j >= 0 && byValue(configs[j]!, c) > 0) {
      configs[j + 1] = configs[j]!;
      j--;
    }
    configs[j + 1] = c;
  }
};
