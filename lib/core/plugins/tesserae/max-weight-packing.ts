import { isHolding } from '../../framework/compare.ts';
import { allowedTypes } from '../../framework/estimates.ts';
import type { PackStage } from '../../framework/stages.ts';
import { allocationOf, copiedSlices, pairedWith } from '../../model/allocation-of.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { ColocationEstimate, ModelRef } from '../../model/perf.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import { type ClassEdge, maxWeightClassMatching } from '../../solvers/transportation.ts';
import { DEFAULT_PACKING_ELIGIBILITY, mayShareGpus, type PackingEligibility } from './eligibility.ts';
import { orderIndex } from './order-index.ts';

export interface PackingOptions extends PackingEligibility {
  /** A pair must beat the placed job alone by this much: Σ normalised throughputs > 1 + minGain. */
  readonly minGain: number;
  /** Only jobs of at most this many GPUs are packed (Tiresias (Single): 1). */
  readonly maxJobGpus: number;
}

export const DEFAULT_PACKING: PackingOptions = {
  ...DEFAULT_PACKING_ELIGIBILITY,
  minGain: 0.05,
  maxJobGpus: Number.POSITIVE_INFINITY,
};

/**
 * Tesserae's packing (Alg. 4): pending jobs (active, not placed this round) are matched onto placed jobs by a
 * max-weight bipartite matching. An edge needs the same GPU count, a GPU type the pending job may use, both
 * jobs allowed to share (`mayShareGpus`), and a pair that fits in memory and gains: the weight is the sum of
 * the two normalised throughputs from `perf.colocation` (0 when they do not fit) and must exceed 1 + minGain.
 * A matched pending job runs on its partner's exact GPUs; both allocations name each other (`packedWith`) and
 * carry the pipeline strategy the co-location data chose (`packingStrategy`), so a GPU holds at most two jobs.
 *
 * Jobs with the same model, batch, GPU count and (placed) GPU type or (pending) allowed types have the same
 * weight to everyone, so the matching is solved between such classes (`maxWeightClassMatching`) — the same
 * optimum as the job-level Hungarian matching, at a size that does not grow with the number of jobs. Inside a
 * class the most important pending jobs are packed first, onto the least important placed jobs first.
 */
export const maxWeightPacking = (overrides: Partial<PackingOptions> = {}): PackStage => {
  const options: PackingOptions = { ...DEFAULT_PACKING, ...overrides };
  if (!(options.minGain >= 0)) throw new RangeError(`packing: minGain must be ≥ 0, got ${options.minGain}`);
  return {
    name: Number.isFinite(options.maxJobGpus)
      ? `max-weight-packing(≤${options.maxJobGpus} GPUs)`
      : 'max-weight-packing',
    pack: (ordered, plan, _free, ctx) => {
      // Position in the order of every job: its rank, and the way to the job itself.
      const rank = orderIndex(ordered, ctx);

      // Pending jobs first: in most rounds none may share, and then the placed jobs need no classes at all.
      const pending = new ClassIndex<PendingClass>();
      // Most jobs may use every type present: one shared list, joined once per round rather than once per job.
      const joined = new Map<readonly GpuTypeId[], string>();
      for (const job of ordered) {
        if (plan.has(job.spec.id) || !mayShareGpus(job.spec, options)) continue;
        const gpus = isHolding(job) ? allocationGpuCount(job.allocation!) : job.spec.gpus;
        if (gpus > options.maxJobGpus) continue;
        const types = allowedTypes(job.spec, ctx);
        let typeKey = joined.get(types);
        if (typeKey === undefined) {
          typeKey = types.join(',');
          joined.set(types, typeKey);
        }
        const { model, batchSize } = job.spec;
        if (!pending.add(gpus, model, batchSize, typeKey, job.spec.id))
          pending.made({ gpus, types: new Set(types), ref: { model, batchSize } });
      }
      if (pending.size === 0) return plan;
      const placed = new ClassIndex<PlacedClass>();
      for (const [jobId, allocation] of plan) {
        const at = rank.get(jobId);
        const job = at === undefined ? undefined : ordered[at];
        if (!job || allocation.packedWith || !mayShareGpus(job.spec, options)) continue;
        const gpus = allocationGpuCount(allocation);
        if (gpus > options.maxJobGpus) continue;
        const { model, batchSize } = job.spec;
        if (!placed.add(allocation.gpuType, gpus, model, batchSize, jobId))
          placed.made({ gpuType: allocation.gpuType, gpus, ref: { model, batchSize } });
      }
      if (placed.size === 0) return plan;

      const edges: (ClassEdge & { readonly co: ColocationEstimate })[] = [];
      placed.classes.forEach((u, left) => {
        pending.classes.forEach((v, right) => {
          if (u.gpus !== v.gpus || !v.types.has(u.gpuType)) return;
          const co = ctx.perf.colocation(u.gpuType, u.gpus, u.ref, v.ref);
          const a = co.normalized[0];
          const b = co.normalized[1];
          const weight = a + b;
          if (a > 0 && b > 0 && weight > 1 + options.minGain) edges.push({ left, right, weight, co });
        });
      });
      if (edges.length === 0) return plan;
      const flow = maxWeightClassMatching(placed.counts(), pending.counts(), edges);

      // The job a pending job shares GPUs with now (asked only of pending jobs, so not built for all jobs).
      const partnerNow = (jobId: string): string | undefined => {
        const job = ordered[rank.get(jobId)!]!;
        return (isHolding(job) ? job.allocation!.packedWith : undefined) || undefined;
      };
      const pairs = choosePairs(edges, flow, placed.members, pending.members, rank, partnerNow);
      const next = new Map(plan);
      for (const { host, guest, edge } of pairs) {
        const allocation = plan.get(host)!;
        const strategy = edge.co.strategy || undefined;
        next.set(host, pairedWith(allocation, guest, strategy));
        next.set(guest, sharedAllocation(allocation, host, strategy));
      }
      return next;
    },
  };
};

interface PlacedClass {
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly ref: ModelRef;
}

interface PendingClass {
  readonly gpus: number;
  readonly types: ReadonlySet<GpuTypeId>;
  readonly ref: ModelRef;
}

/**
 * Concrete jobs for the class-level flow. Members of a class are interchangeable for the matching's weight, so
 * the choice among them is free: pairs that already share GPUs are kept first (re-pairing equal jobs would
 * migrate a job for nothing), then the most important pending jobs go onto the least important placed jobs.
 */
const choosePairs = <E>(
  edges: readonly (ClassEdge & E)[],
  flow: readonly number[],
  placedMembers: readonly string[][],
  pendingMembers: readonly string[][],
  rank: ReadonlyMap<string, number>,
  partnerNow: (jobId: string) => string | undefined,
): { host: string; guest: string; edge: ClassEdge & E }[] => {
  const remaining = [...flow];
  const edgeOf = new Map<string, number>();
  edges.forEach((e, k) => {
    edgeOf.set(`${e.left}:${e.right}`, k);
  });
  const placedClassOf = new Map<string, number>();
  placedMembers.forEach((ids, c) => {
    for (const id of ids) placedClassOf.set(id, c);
  });
  const taken = new Set<string>();
  const pairs: { host: string; guest: string; edge: ClassEdge & E }[] = [];
  const take = (host: string, guest: string, k: number) => {
    taken.add(host);
    taken.add(guest);
    remaining[k]!--;
    pairs.push({ host, guest, edge: edges[k]! });
  };
  // Pending members are added in the order, so each class is already in rank order.
  const pendingQueues = pendingMembers;
  pendingQueues.forEach((guests, right) => {
    for (const guest of guests) {
      const host = partnerNow(guest);
      const left = host === undefined ? undefined : placedClassOf.get(host);
      if (host === undefined || left === undefined || taken.has(host)) continue;
      const k = edgeOf.get(`${left}:${right}`);
      if (k !== undefined && remaining[k]! > 0) take(host, guest, k);
    }
  });
  // Placed members come in plan order: each class is sorted (least important first) when an edge first draws on it.
  const placedQueues: (string[] | undefined)[] = new Array(placedMembers.length);
  const placedQueue = (c: number): string[] => {
    let queue = placedQueues[c];
    if (!queue) {
      queue = byRankDescending(placedMembers[c]!, rank);
      placedQueues[c] = queue;
    }
    return queue;
  };
  const placedNext = new Array<number>(placedQueues.length).fill(0);
  const pendingNext = new Array<number>(pendingQueues.length).fill(0);
  const nextFree = (queue: readonly string[], cursor: number[], c: number): string => {
    while (taken.has(queue[cursor[c]!]!)) cursor[c]!++;
    return queue[cursor[c]!++]!;
  };
  edges.forEach((edge, k) => {
    while (remaining[k]! > 0) {
      const host = nextFree(placedQueue(edge.left), placedNext, edge.left);
      const guest = nextFree(pendingQueues[edge.right]!, pendingNext, edge.right);
      take(host, guest, k);
    }
  });
  return pairs;
};

/** Job ids by rank, highest rank (least important) first; ranks are distinct, so the order is total. */
const byRankDescending = (ids: readonly string[], rank: ReadonlyMap<string, number>): string[] => {
  const ranked = ids.map((id) => ({ id, rank: rank.get(id)! }));
  ranked.sort((x, y) => y.rank - x.rank);
  return ranked.map((r) => r.id);
};

/** The guest's allocation: the host job's exact GPUs, nothing else of its allocation (no Cell, no ESTs). */
const sharedAllocation = (host: Allocation, hostId: string, strategy: string | undefined): Allocation =>
  allocationOf(host.gpuType, copiedSlices(host.slices), undefined, hostId, strategy);

/**
 * Jobs grouped into classes of equal weight, in first-seen order (deterministic), keyed by four fields. Asked for
 * every placed and every unplaced job every round: nested maps on the fields themselves, not a key string built per
 * job and hashed, and no closure per job (a new class's data is given by `made` after `add` says it is new).
 */
class ClassIndex<C> {
  readonly classes: C[] = [];
  readonly members: string[][] = [];
  private readonly index = new Map<unknown, Map<unknown, Map<unknown, Map<unknown, number>>>>();

  get size(): number {
    return this.members.length;
  }

  /** Adds the job to the class of (a, b, c, d); false when that class is new: the caller then gives `made` its data. */
  add(a: unknown, b: unknown, c: unknown, d: unknown, jobId: string): boolean {
    const byD = child(child(child(this.index, a), b), c);
    const i = byD.get(d);
    if (i !== undefined) {
      this.members[i]!.push(jobId);
      return true;
    }
    byD.set(d, this.members.length);
    this.members.push([jobId]);
    return false;
  }

  /** The data of the class `add` just made. */
  made(data: C): void {
    this.classes.push(data);
  }

  counts(): number[] {
    return this.members.map((m) => m.length);
  }
}

const child = <C extends Map<unknown, unknown>>(map: Map<unknown, C>, key: unknown): C => {
  let next = map.get(key);
  if (!next) {
    next = new Map() as C;
    map.set(key, next);
  }
  return next;
};
