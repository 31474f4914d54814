import { isHolding } from '../../framework/compare.ts';
import { levelOf } from '../../framework/free-gpus.ts';
import type { PlaceStage } from '../../framework/stages.ts';
import { withSlices } from '../../model/allocation-of.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import { LEVELS, levelRank } from '../../model/topology.ts';

/**
 * Network-sensitive re-consolidation of running jobs (Dally's idea, applied after placement).
 *
 * A placement that keeps running jobs where they are leaves a job that had to take GPUs across machines there for
 * the rest of its run, even after GPUs free up on one machine (or one rack): a communication-heavy job then runs at a
 * fraction of its speed for hours. After the wrapped stage has placed everyone, each multi-host job (in priority
 * order) moves to the best-consolidated free GPUs of its type and count when that is a better level and the time it
 * saves on its remaining iterations exceeds the restart the move costs. Packed and elastic jobs stay.
 */
export const reconsolidate = (
  inner: PlaceStage,
  remainingOf: (job: JobState) => number = remainingIterations,
): PlaceStage => ({
  name: `${inner.name}+reconsolidate`,
  place: (ordered, demands, free, ctx) => {
    const plan = inner.place(ordered, demands, free, ctx);
    for (const job of ordered) {
      const placed = plan.get(job.spec.id);
      if (!placed || placed.packedWith || placed.ests || placed.slices.length < 2) continue;
      const level = levelOf(placed, ctx.hostOf);
      const gpus = allocationGpuCount(placed);
      // Only a better level can win: the search stops one level above the job's (the same answer whenever it is
      // better, and no costly search of the job's own level or worse, which could never be taken).
      const better = LEVELS[levelRank(level) - 1];
      // No better level can be found (none, or no host or group that would have the GPUs even with the job's back):
      // the job stays, and its GPUs' release and reservation is only the bucket order it leaves, which `requeue` gives.
      if (!better || !free.mayFindAfterRelease(placed, gpus, better)) {
        if (free.requeue(placed)) continue;
      }
      free.release(placed);
      const found = better ? free.find(placed.gpuType, gpus, better) : undefined;
      let next: Allocation = placed;
      if (found && levelRank(found.level) < levelRank(level)) {
        // The query's fields only (a spread of the whole spec is a copy per call, every round).
        const { model, batchSize } = job.spec;
        const rate = (shape: { level: typeof level; hosts: number }) =>
          ctx.perf.throughput({ model, batchSize, gpuType: placed.gpuType, gpus, shape }).iterationsPerSecond;
        const now = rate({ level, hosts: placed.slices.length });
        const better = rate({ level: found.level, hosts: found.slices.length });
        // A job already moving this round pays its restart anyway; a kept one pays it for this move.
        const restart = isHolding(job) && job.allocation === placed ? ctx.config.restartSeconds : 0;
        const remaining = remainingOf(job);
        if (now > 0 && better > now && remaining / now - remaining / better > restart) {
          next = withSlices(placed, found.slices);
        }
      }
      free.reserve(next);
      if (next !== placed) plan.set(job.spec.id, next);
    }
    return plan;
  },
  ...(inner.nextState ? { nextState: inner.nextState } : {}),
});
