import { isHolding } from '../../framework/compare.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import type { CellConfig } from './job-cells.ts';
import type { VirtualAllocation } from './virtual.ts';

/**
 * Admission moves that pay in seconds (tessera, not Crius).
 *
 * Crius admits a waiting job by moving running jobs to smaller or other Cells when the admitted Cell's normalised
 * throughput exceeds what the moves lose. That trade is in rates, so it prices a move of a job with a week left the
 * same as one with a minute left, although the first runs slower for a week (nothing promises it ever gets its Cell
 * back) while the admission only starts the waiting job sooner than it would have started anyway. On held-out Philly
 * days on aws-mixed it moved the longest job (8 A100s) to 4 L4s to admit short jobs, and that job set the makespan.
 *
 * The rule counts both sides in seconds of job completion time: a move costs the moved job its remaining work at the
 * new rate minus at the old, plus a restart if it runs (`cost`); admitting now saves the admitted job the time it
 * would otherwise wait for the GPUs of its Cell, i.e. until jobs on that type finish and free enough of them
 * (`wait`). A set of moves may admit the job only when its cost is less than that wait. Short jobs are still moved
 * (their remaining work is small), long ones only for an admission that would otherwise wait long.
 */
export interface MovesThatPayOptions {
  /** Iterations a job still has to run, as the scheduler estimates them. */
  readonly remainingOf: (job: JobState) => number;
}

/** Seconds both sides of an admission move, for one round's virtual allocation. */
export interface MoveSeconds {
  /** Seconds moving `jobId` from `from` to `to` adds to its completion time. */
  cost(jobId: string, from: CellConfig, to: CellConfig): number;
  /** Seconds until `admit.gpus` GPUs of its type are free, from holders finishing at their current rates. */
  wait(admit: CellConfig): number;
}

export const moveSeconds = (
  vc: VirtualAllocation,
  byId: ReadonlyMap<string, JobState>,
  restartSeconds: number,
  o: MovesThatPayOptions,
): MoveSeconds => {
  const remaining = new Map<string, number>();
  const remainingOf = (jobId: string): number => {
    let r = remaining.get(jobId);
    if (r === undefined) {
      const job = byId.get(jobId);
      r = job ? o.remainingOf(job) : 0;
      remaining.set(jobId, r);
    }
    return r;
  };
  // Per type, holders' finish times (ascending) with their GPUs, valid while the type's holders do not change.
  const finishes = new Map<GpuTypeId, { version: number; list: { at: number; gpus: number }[] }>();
  const finishesOn = (type: GpuTypeId): { at: number; gpus: number }[] => {
    const version = vc.version(type);
    const hit = finishes.get(type);
    if (hit && hit.version === version) return hit.list;
    const list: { at: number; gpus: number }[] = [];
    for (const jobId of vc.jobsOn(type)) {
      const held = vc.get(jobId)!;
      const at = held.rate > 0 ? remainingOf(jobId) / held.rate : Number.POSITIVE_INFINITY;
      list.push({ at, gpus: held.gpus });
    }
    list.sort((a, b) => a.at - b.at);
    finishes.set(type, { version, list });
    return list;
  };
  return {
    cost(jobId, from, to) {
      const job = byId.get(jobId);
      // A job admitted earlier this round has not started: moving it costs no restart.
      const restart = job && isHolding(job) ? restartSeconds : 0;
      if (!(from.rate > 0) || !(to.rate > 0)) return restart;
      const r = remainingOf(jobId);
      return restart + Math.max(0, r / to.rate - r / from.rate);
    },
    wait(admit) {
      let free = vc.free(admit.gpuType);
      if (free >= admit.gpus) return 0;
      for (const f of finishesOn(admit.gpuType)) {
        free += f.gpus;
        if (free >= admit.gpus) return f.at;
      }
      return Number.POSITIVE_INFINITY;
    },
  };
};
