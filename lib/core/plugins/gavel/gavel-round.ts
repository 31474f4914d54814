import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { allowedTypes, isolatedThroughput } from '../../framework/estimates.ts';
import type { AllocateStage, Demand, PackStage, RoundContext } from '../../framework/stages.ts';
import { allocationOf, copiedSlices, pairedWith } from '../../model/allocation-of.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import type { PerfModel } from '../../model/perf.ts';
import { allocationGpuCount } from '../../model/plan.ts';
import { mayShareGpus } from '../tesserae/eligibility.ts';
import { type GavelAllocation, type GavelPair, solveMaxMinFairness } from './gavel-lp.ts';

export interface GavelOptions {
  /** Candidate partners per job in the program (the best pairs by summed normalised speed). */
  readonly partnersPerJob: number;
}

export const DEFAULT_GAVEL: GavelOptions = { partnersPerJob: 3 };

/** What Gavel decided for one round: who runs on which type, and which pairs share GPUs (leader → guest). */
export interface GavelDecision {
  readonly demands: Map<string, Demand>;
  readonly guests: Map<string, string>;
}

/**
 * Gavel's round-based mechanism (§5) on top of its max-min fairness program (`solveMaxMinFairness`): each
 * job alone, and each candidate pair together, on each type, gets priority X / (share of time it has received);
 * entries are taken greedily by priority while their type has room and none of their jobs is taken yet.
 * Jobs the program gives nothing still fill leftover GPUs afterwards (Gavel's LAS schedules them at priority 0);
 * pairs do only when the program chose them. Gavel tracks rounds received per (job, type); this stage has no
 * memory between rounds, so a job's received share is its time holding GPUs over its time in the system, and a
 * pair's the mean of its two jobs'. Rounds are leases: a job (or pair) started less than `roundSeconds` ago keeps
 * running on its type when an arrival or completion triggers an extra round.
 *
 * Candidate pairs: jobs that may share (`mayShareGpus`) with the same GPU count, on a type both may use, whose
 * normalised speeds sum above 1 — a pair below that is beaten by time-slicing its two jobs, so leaving it out
 * cannot change the optimum. Each job keeps its `partnersPerJob` best partners, which bounds the program's size.
 */
export const gavelDecision = (
  ordered: readonly JobState[],
  ctx: RoundContext,
  options: GavelOptions = DEFAULT_GAVEL,
): GavelDecision => {
  // The program is built in job-id order, so it depends on the job set only, not on this round's priorities.
  const rank = new Map<string, number>();
  ordered.forEach((job, i) => {
    rank.set(job.spec.id, i);
  });
  const canonical = [...ordered].sort((x, y) => (x.spec.id < y.spec.id ? -1 : x.spec.id > y.spec.id ? 1 : 0));
  const types = [...ctx.capacity.keys()].sort();
  const capacity = types.map((t) => ctx.capacity.get(t)!.gpus);
  const gpusOf = (job: JobState) => (isHolding(job) ? allocationGpuCount(job.allocation!) : job.spec.gpus);
  const jobs = canonical.map((job) => {
    const allowed = new Set(allowedTypes(job.spec, ctx));
    const gpus = gpusOf(job);
    return {
      gpus,
      weight: 1 + Math.max(0, job.spec.priority),
      throughput: types.map((t) => (allowed.has(t) ? isolatedThroughput(job.spec, t, gpus, ctx) : 0)),
    };
  });
  const pairs = candidatePairs(canonical, jobs, types, ctx, options);
  const allocation = solveCached(ctx.perf, canonical, types, capacity, jobs, pairs);

  const received = canonical.map((job) => {
    const age = Math.max(ctx.config.roundSeconds, ctx.now - job.spec.submitTime);
    return Math.min(1, job.runningSeconds / age);
  });
  const rankOf = (m: number) => rank.get(canonical[m]!.spec.id)!;
  // Gavel's rounds are leases: a job started less than a round ago keeps its GPUs until the round ends, even
  // when an arrival or a completion triggers a round in between.
  const leased = canonical.map(
    (job) =>
      isHolding(job) &&
      job.runningSince !== undefined &&
      ctx.now - job.runningSince < ctx.config.roundSeconds,
  );
  const heldType = canonical.map((job) => (isHolding(job) ? types.indexOf(job.allocation!.gpuType) : -1));
  const partnerOf = canonical.map((job) => (isHolding(job) ? job.allocation!.packedWith : undefined));
  interface Entry {
    readonly members: readonly number[];
    readonly type: number;
    readonly share: number;
    readonly priority: number;
    readonly rank: number;
  }
  const entries: Entry[] = [];
  const priorityOf = (share: number, got: number) =>
    share <= 0 ? 0 : got <= 0 ? Number.POSITIVE_INFINITY : share / got;
  jobs.forEach((job, m) => {
    types.forEach((_, t) => {
      if (!(job.throughput[t]! > 0) || capacity[t]! < job.gpus) return;
      const share = allocation.single[m * types.length + t]!;
      const lease = leased[m]! && heldType[m] === t && partnerOf[m] === undefined;
      const priority = lease ? Number.POSITIVE_INFINITY : priorityOf(share, received[m]!);
      entries.push({ members: [m], type: t, share, priority, rank: rankOf(m) });
    });
  });
  pairs.forEach((pair, p) => {
    types.forEach((_, t) => {
      const share = allocation.pair[p * types.length + t]!;
      const lease =
        leased[pair.a]! &&
        leased[pair.b]! &&
        heldType[pair.a] === t &&
        partnerOf[pair.a] === canonical[pair.b]!.spec.id;
      if (share <= 1e-9 && !lease) return;
      const got = (received[pair.a]! + received[pair.b]!) / 2;
      const priority = lease ? Number.POSITIVE_INFINITY : priorityOf(share, got);
      const first = Math.min(rankOf(pair.a), rankOf(pair.b));
      entries.push({ members: [pair.a, pair.b], type: t, share, priority, rank: first });
    });
  });
  // Highest priority first; ties by share, then by the order stage's priority (LAS), singles before pairs.
  entries.sort(
    (x, y) =>
      y.priority - x.priority ||
      y.share - x.share ||
      x.rank - y.rank ||
      x.members.length - y.members.length ||
      x.type - y.type,
  );

  const remaining = [...capacity];
  const taken = new Set<number>();
  const demands = new Map<string, Demand>();
  const guests = new Map<string, string>();
  for (const entry of entries) {
    const gpus = jobs[entry.members[0]!]!.gpus;
    if (entry.members.some((m) => taken.has(m)) || remaining[entry.type]! < gpus) continue;
    remaining[entry.type]! -= gpus;
    for (const m of entry.members) taken.add(m);
    const gpuType = types[entry.type]!;
    const [leader, guest] = leaderFirst(entry.members, canonical, gpuType) as [number, number?];
    demands.set(canonical[leader]!.spec.id, demandOf(gpuType, gpus));
    if (guest !== undefined) guests.set(canonical[leader]!.spec.id, canonical[guest]!.spec.id);
  }
  return { demands, guests };
};

/** The member already holding GPUs of this type leads the pair, so it can stay where it is. */
const leaderFirst = (
  members: readonly number[],
  canonical: readonly JobState[],
  type: GpuTypeId,
): number[] => {
  if (members.length < 2) return [...members];
  const [a, b] = members as [number, number];
  const holds = (m: number) => isHolding(canonical[m]!) && canonical[m]!.allocation!.gpuType === type;
  return !holds(a) && holds(b) ? [b, a] : [a, b];
};

const candidatePairs = (
  canonical: readonly JobState[],
  jobs: readonly { gpus: number; throughput: readonly number[] }[],
  types: readonly GpuTypeId[],
  ctx: RoundContext,
  options: GavelOptions,
): GavelPair[] => {
  // Jobs with the same model, batch, GPU count and throughputs pair alike: weigh classes, not jobs.
  const classes = new Map<string, number[]>();
  canonical.forEach((job, m) => {
    if (!mayShareGpus(job.spec)) return;
    const key = `${job.spec.model}\u0000${job.spec.batchSize}\u0000${jobs[m]!.gpus}\u0000${jobs[m]!.throughput.join(',')}`;
    const list = classes.get(key) ?? [];
    list.push(m);
    classes.set(key, list);
  });
  const members = [...classes.values()];
  const speeds = new Map<string, { a: number[]; b: number[]; best: number }>();
  const speedOf = (x: number, y: number) => {
    const key = `${x}:${y}`;
    let found = speeds.get(key);
    if (!found) {
      const a = members[x]![0]!;
      const b = members[y]![0]!;
      const sa: number[] = [];
      const sb: number[] = [];
      let best = 0;
      types.forEach((type, t) => {
        sa.push(0);
        sb.push(0);
        if (!(jobs[a]!.throughput[t]! > 0 && jobs[b]!.throughput[t]! > 0)) return;
        const co = ctx.perf.colocation(type, jobs[a]!.gpus, canonical[a]!.spec, canonical[b]!.spec);
        const [na, nb] = co.normalized;
        if (na > 0 && nb > 0 && na + nb > 1) {
          sa[t] = na;
          sb[t] = nb;
          best = Math.max(best, na + nb);
        }
      });
      found = { a: sa, b: sb, best };
      speeds.set(key, found);
    }
    return found;
  };

  const chosen = new Map<string, GavelPair>();
  members.forEach((own, x) => {
    const gpus = jobs[own[0]!]!.gpus;
    const partnerClasses = members
      .map((_, y) => y)
      .filter((y) => jobs[members[y]![0]!]!.gpus === gpus && speedOf(x, y).best > 0)
      .sort((y1, y2) => speedOf(x, y2).best - speedOf(x, y1).best || y1 - y2);
    own.forEach((m, position) => {
      let found = 0;
      for (const y of partnerClasses) {
        const others = members[y]!;
        // Start at an offset so that a large class spreads its partners instead of all picking the same jobs.
        for (let k = 0; k < others.length && found < options.partnersPerJob; k++) {
          const partner = others[(position + k + (x === y ? 1 : 0)) % others.length]!;
          if (partner === m) continue;
          const [a, b] = m < partner ? [m, partner] : [partner, m];
          const key = `${a}:${b}`;
          if (!chosen.has(key)) {
            const s = m < partner ? speedOf(x, y) : speedOf(y, x);
            chosen.set(key, { a, b, speedA: s.a, speedB: s.b });
          }
          found++;
        }
        if (found >= options.partnersPerJob) break;
      }
    });
  });
  return [...chosen.values()];
};

/**
 * The program (built in job-id order) depends only on the job set, the capacity and the performance model, which change
 * on arrivals and completions; periodic rounds in between reuse the last solution (Gavel too recomputes its
 * allocation only when the job set changes).
 */
const lastSolution = new WeakMap<PerfModel, { key: string; allocation: GavelAllocation }>();

const solveCached = (
  perf: PerfModel,
  canonical: readonly JobState[],
  types: readonly GpuTypeId[],
  capacity: readonly number[],
  jobs: readonly { gpus: number; weight: number; throughput: readonly number[] }[],
  pairs: readonly GavelPair[],
): GavelAllocation => {
  const key = [
    types.join(','),
    capacity.join(','),
    ...canonical.map(
      (job, m) => `${job.spec.id}:${jobs[m]!.gpus}:${jobs[m]!.weight}:${jobs[m]!.throughput.join('/')}`,
    ),
  ].join('\u0000');
  const cached = lastSolution.get(perf);
  if (cached?.key === key) return cached.allocation;
  const allocation = solveMaxMinFairness({ capacity, jobs, pairs });
  lastSolution.set(perf, { key, allocation });
  return allocation;
};

/** One decision per round, shared by the allocate and pack stages of the `gavel` policy. */
const decisions = new WeakMap<RoundContext, GavelDecision>();
const decisionFor = (
  ordered: readonly JobState[],
  ctx: RoundContext,
  options: GavelOptions,
): GavelDecision => {
  let decision = decisions.get(ctx);
  if (!decision) {
    decision = gavelDecision(ordered, ctx, options);
    decisions.set(ctx, decision);
  }
  return decision;
};

/** Gavel's allocation as a stage: the demands of the jobs and pair leaders the mechanism picked. */
export const gavelAllocate = (options: GavelOptions = DEFAULT_GAVEL): AllocateStage => ({
  name: 'gavel-max-min-fairness',
  allocate: (ordered, ctx) => new Map(decisionFor(ordered, ctx, options).demands),
});

/** Gavel's space sharing as a stage: each chosen pair's guest runs on its placed leader's exact GPUs. */
export const gavelPairs = (options: GavelOptions = DEFAULT_GAVEL): PackStage => ({
  name: 'gavel-pairs',
  pack: (ordered, plan, _free, ctx) => {
    const { guests } = decisionFor(ordered, ctx, options);
    const next = new Map(plan);
    for (const [leader, guest] of guests) {
      const allocation = plan.get(leader);
      if (!allocation || plan.has(guest)) continue;
      next.set(leader, pairedWith(allocation, guest));
      const shared = allocationOf(allocation.gpuType, copiedSlices(allocation.slices), undefined, leader);
      next.set(guest, shared);
    }
    return next;
  },
});
