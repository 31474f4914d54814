import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import { admissionConfigs } from '../crius/search.ts';
import type { TakeView } from '../crius/take.ts';
import type { VirtualAllocation } from '../crius/virtual.ts';
import { estimatedRemainingIterations } from './order.ts';

/** A holder of a type: when it ends (remaining iterations at its held rate) and the GPUs it frees then. */
export interface HolderEnd {
  readonly at: number;
  readonly gpus: number;
}

/**
 * What tessera's take test (`take-pays.ts`) reads, kept for one allocation pass (made with the test, per round).
 * Crius's allocation asks the test once per admission Cell of each waiting job it tries to admit by a take, and on
 * an overloaded cluster a hundred jobs wait: summing every job waiting ahead and sorting every holder of the type
 * anew at each question made the pass quadratic in the queue (13–15 % of tessera's warm run on gavel:200:30@aws-mixed,
 * session 13). The answers are the same numbers:
 * - the jobs waiting ahead only grow within a pass (Crius appends each job it leaves pending): their sum per type is
 *   extended by the new ones (integer GPU counts, added in the same order);
 * - a type's holders change only through the virtual allocation's `assign` and `release`, which bump its version:
 *   their ends, sorted, are kept per type and version (a job's remaining work and its held Cell are fixed meanwhile).
 */
export class TakeTestMemo {
  /** Per job, the fewest GPUs of each type its admission Cells ask for (a job's Cells do not change in a round). */
  private readonly least = new Map<string, ReadonlyMap<GpuTypeId, number>>();
  private aheadList: readonly JobState[] | undefined;
  private counted = 0;
  private aheadSum = new Map<GpuTypeId, number>();
  private readonly ends = new Map<
    GpuTypeId,
    { vc: VirtualAllocation; version: number; ends: readonly HolderEnd[] }
  >();

  /** Per type, the GPUs the jobs waiting ahead ask for first: the smallest admission Cell of each on that type. */
  gpusAhead(view: TakeView): ReadonlyMap<GpuTypeId, number> {
    const list = view.waitingAhead;
    if (list !== this.aheadList || list.length < this.counted) {
      this.aheadList = list;
      this.counted = 0;
      this.aheadSum = new Map();
    }
    const sum = this.aheadSum;
    for (; this.counted < list.length; this.counted++) {
      for (const [type, gpus] of this.leastOf(list[this.counted]!, view))
        sum.set(type, (sum.get(type) ?? 0) + gpus);
    }
    return sum;
  }

  /** The holders of `type` in the view's virtual allocation, soonest end first. */
  holderEnds(type: GpuTypeId, view: TakeView): readonly HolderEnd[] {
    const { vc } = view;
    const version = vc.version(type);
    const hit = this.ends.get(type);
    if (hit && hit.vc === vc && hit.version === version) return hit.ends;
    const ends: HolderEnd[] = [];
    for (const id of vc.jobsOn(type)) {
      const held = vc.get(id);
      const holder = view.job(id);
      if (!held || !holder || !(held.rate > 0)) continue;
      ends.push({ at: estimatedRemainingIterations(holder) / held.rate, gpus: held.gpus });
    }
    ends.sort((a, b) => a.at - b.at);
    this.ends.set(type, { vc, version, ends });
    return ends;
  }

  private leastOf(job: JobState, view: TakeView): ReadonlyMap<GpuTypeId, number> {
    let least = this.least.get(job.spec.id);
    if (!least) {
      const byType = new Map<GpuTypeId, number>();
      for (const c of admissionConfigs(view.cellsOf(job)))
        byType.set(c.gpuType, Math.min(byType.get(c.gpuType) ?? Number.POSITIVE_INFINITY, c.gpus));
      least = byType;
      this.least.set(job.spec.id, least);
    }
    return least;
  }
}
