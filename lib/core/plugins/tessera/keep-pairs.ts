import { isHolding } from '../../framework/compare.ts';
import type { PackStage } from '../../framework/stages.ts';
import { allocationOf, copiedSlices, pairedWith, unpaired } from '../../model/allocation-of.ts';
import type { JobState } from '../../model/job.ts';
import { type Allocation, allocationGpuCount, sameGpus } from '../../model/plan.ts';
import { mayShareGpus } from '../tesserae/eligibility.ts';
import { DEFAULT_PACKING, type PackingOptions } from '../tesserae/max-weight-packing.ts';
import { orderIndex } from '../tesserae/order-index.ts';
import { unchangedPairing } from '../tesserae/paired-allocation.ts';

/**
 * Packing that keeps the pairs already sharing GPUs before it matches the rest.
 *
 * A packing stage re-solves its matching every round; jobs of equal weight are interchangeable to it, so as
 * arrivals and completions change the classes it moves a guest from partner to partner — and every move restarts
 * the guest (a checkpoint and a restore) for no gain. A pair is kept when its host still runs on exactly the GPUs
 * the pair shares, the guest is still not placed on GPUs of its own, both may still share, and the pair still
 * gains (Σ normalised throughputs > 1 + minGain). Partners that no longer share GPUs are dropped first (a job whose
 * guest now waits runs alone, and may take a new guest). The wrapped stage then packs the remaining jobs as usual.
 * The plan is copied only when a pair changes, so a round that keeps every pair hands the placement's plan on.
 */
export const keepingPairs = (
  inner: PackStage,
  options: Pick<PackingOptions, 'minGain' | 'maxSharedPriority'> = DEFAULT_PACKING,
): PackStage => ({
  name: `${inner.name}+keep-pairs`,
  pack: (ordered, plan, free, ctx) => {
    const index = orderIndex(ordered, ctx);
    // Copied on the first change only: in most rounds every pair was kept by the placement already.
    let next = withoutStalePartners(plan);
    let copied = next !== plan;
    for (const guest of ordered) {
      const hostId = isHolding(guest) ? guest.allocation!.packedWith : undefined;
      if (hostId === undefined || next.has(guest.spec.id)) continue;
      const at = index.get(hostId);
      const host = at === undefined ? undefined : ordered[at];
      const hosted = next.get(hostId);
      if (!host || !hosted || hosted.packedWith || !sameGpus(hosted, guest.allocation)) continue;
      if (!mayShareGpus(host.spec, options) || !mayShareGpus(guest.spec, options)) continue;
      const gpus = allocationGpuCount(hosted);
      const co = ctx.perf.colocation(hosted.gpuType, gpus, ref(host), ref(guest));
      const a = co.normalized[0];
      const b = co.normalized[1];
      if (!(a > 0 && b > 0 && a + b > 1 + options.minGain)) continue;
      if (!copied) {
        next = new Map(next);
        copied = true;
      }
      const named = co.strategy || undefined;
      const held = isHolding(host) ? host.allocation : undefined;
      next.set(
        hostId,
        unchangedPairing(held, hosted, guest.spec.id, named) ?? pairedWith(hosted, guest.spec.id, named),
      );
      const guestBase = allocationOf(hosted.gpuType, hosted.slices);
      next.set(
        guest.spec.id,
        unchangedPairing(guest.allocation, guestBase, hostId, named) ??
          allocationOf(hosted.gpuType, copiedSlices(hosted.slices), undefined, hostId, named),
      );
    }
    return inner.pack(ordered, next, free, ctx);
  },
});

/**
 * A job as the co-location model asks for it. A module function, not a closure made in the loop: under tsx's
 * keepNames every closure made is also a `__name` call (a property definition), which showed in the round's profile.
 */
const ref = (j: JobState) => ({ model: j.spec.model, batchSize: j.spec.batchSize });

/**
 * The plan without partners that no longer share GPUs: a placement stage keeps a running job's allocation as it
 * was, `packedWith` included, although its partner may now be waiting or elsewhere. Such a job runs alone (and may
 * take a new partner); only mutual pairs on the same GPUs stay. `plan` is never modified: it is returned itself
 * when every pair stands, else copied.
 */
const withoutStalePartners = (plan: Map<string, Allocation>): Map<string, Allocation> => {
  let next: Map<string, Allocation> | undefined;
  for (const [jobId, allocation] of plan) {
    if (allocation.packedWith === undefined) continue;
    const partner = plan.get(allocation.packedWith);
    if (partner?.packedWith === jobId && sameGpus(partner, allocation)) continue;
    next ??= new Map(plan);
    next.set(jobId, unpaired(allocation));
  }
  return next ?? plan;
};
