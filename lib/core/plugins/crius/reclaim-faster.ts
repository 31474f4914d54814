import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import type { CellConfig, JobCells } from './job-cells.ts';
import { admissionConfigs, type Budget } from './search.ts';
import type { Take, TakeView } from './take.ts';
import type { VirtualAllocation } from './virtual.ts';

/**
 * Admission on the GPUs a job's place in the order entitles it to (tessera, not Crius). Crius takes back GPUs from
 * jobs later in the order only when nothing else admits a job, so a job ahead in the order (the longest job under
 * the makespan guard, say) is admitted on a slow type or at N/2 while jobs behind it hold the fast GPUs, and runs
 * there for its whole length. With this rule a waiting job whose best Cell on GPUs held by jobs later in the order
 * is `minGain` faster than the Cell it would get without them takes that Cell; the jobs it displaces compete again
 * after it (an elastic one runs on the GPUs left, EasyScale's "guaranteed first, elastic on spare").
 * Limit: a displaced job competing again may still win its GPUs back within the round through Crius's scaling moves
 * (they may move any job); forbidding that measured worse on the guaranteed + elastic mix (docs/architecture.md).
 */
export interface ReclaimFasterOptions {
  /** Relative rate gain over the Cell available without reclaiming that justifies displacing jobs. */
  readonly minGain: number;
  /** Jobs that may be displaced (besides being later in the order and of no higher priority). */
  readonly victim: (job: JobState) => boolean;
  /** Per round, whether a displacement pays (tessera: `plugins/tessera/take-pays.ts` `reclaimPays`); all do when absent. */
  readonly pays?: (ctx: RoundContext) => ReclaimTest;
}

/**
 * Whether admitting `cells.job` on `admit` by displacing `takes` (each to the best Cell left for it, see
 * `displacements`) pays against admitting it on `available`, the Cell it gets without them.
 */
export type ReclaimTest = (
  cells: JobCells,
  available: CellConfig,
  admit: CellConfig,
  takes: readonly Take[],
  view: TakeView,
) => boolean;

/**
 * The Cell of `cells.job` faster than `available` by `minGain`, freed by displacing holders later in the order
 * (latest first), where `pays` (if given) accepts the displacement; the fastest such Cell, then the one displacing
 * fewest GPUs. Applies it to `vc` and returns the displaced job ids, or undefined (nothing changes).
 */
export const reclaimFaster = (
  cells: JobCells,
  available: CellConfig,
  vc: VirtualAllocation,
  byId: Pick<ReadonlyMap<string, JobState>, 'get'>,
  rank: number,
  budget: Budget,
  o: ReclaimFasterOptions,
  pays?: (admit: CellConfig, victims: readonly string[]) => boolean,
): string[] | undefined => {
  const job = cells.job;
  let best: { admit: CellConfig; victims: string[]; gpus: number } | undefined;
  for (const admit of admissionConfigs(cells)) {
    if (admit.rate <= available.rate * (1 + o.minGain)) continue;
    if (best && admit.rate < best.admit.rate) continue;
    let free = vc.free(admit.gpuType);
    const victims: string[] = [];
    let gpus = 0;
    for (const id of vc.holdersAfter(admit.gpuType, rank)) {
      if (free >= admit.gpus || !budget.spend()) break;
      const victim = byId.get(id);
      if (!victim || victim.spec.priority > job.spec.priority || !o.victim(victim)) continue;
      const held = vc.get(id)!.gpus;
      free += held;
      gpus += held;
      victims.push(id);
    }
    if (free < admit.gpus || (pays && !pays(admit, victims))) continue;
    if (!best || admit.rate > best.admit.rate || gpus < best.gpus) best = { admit, victims, gpus };
  }
  if (!best) return undefined;
  for (const id of best.victims) vc.release(id);
  vc.assign(job.spec.id, best.admit);
  return best.victims;
};

/**
 * The displacement of `victims` as takes: each from the Cell it holds to its fastest admission Cell on the GPUs free
 * once the victims are released and `admit` assigned (victims in order, each taking its Cell from what is left), or
 * suspended where none fits (an elastic one then runs on spare GPUs, if any). A displaced job competes again after the
 * admitted one: this is the best Cell it gets without moving anyone.
 */
export const displacements = (
  admit: CellConfig,
  victims: readonly string[],
  vc: VirtualAllocation,
  byId: Pick<ReadonlyMap<string, JobState>, 'get'>,
  cellsOf: (job: JobState) => JobCells,
): Take[] => {
  const free = new Map<GpuTypeId, number>();
  const add = (type: GpuTypeId, gpus: number) => free.set(type, (free.get(type) ?? vc.free(type)) + gpus);
  for (const id of victims) {
    const held = vc.get(id)!;
    add(held.gpuType, held.gpus);
  }
  add(admit.gpuType, -admit.gpus);
  const takes: Take[] = [];
  for (const id of victims) {
    let to: CellConfig | undefined;
    for (const c of admissionConfigs(cellsOf(byId.get(id)!)))
      if (c.gpus <= (free.get(c.gpuType) ?? vc.free(c.gpuType)) && (!to || c.rate > to.rate)) to = c;
    if (to) add(to.gpuType, -to.gpus);
    takes.push({ jobId: id, from: vc.get(id)!, to });
  }
  return takes;
};
