import type { Host, HostSlice } from '../../model/cluster.ts';
import { LEVELS, type Level, levelRank } from '../../model/topology.ts';

/** Settings of Dally's network-sensitive preemption (specs/dally.md §3). */
export interface PreemptionOptions {
  /** A job must have run this long on its current placement before it can be preempted. */
  readonly quantumSeconds: number;
  /**
   * A victim's P must exceed the beneficiary's by at least this much (in the formula's units): only jobs clearly less
   * slowed than the beneficiary give way, so two similar jobs never swap back and forth, and estimation noise in P
   * (the scheduler's compute estimate is not the truth) does not preempt anybody.
   */
  readonly minPriorityGap: number;
  /** Preempt only when the beneficiary's expected gain exceeds this multiple of the checkpoint/restore cost. */
  readonly gainFactor: number;
  /** Offer running jobs on poor placements a better-consolidated one (they checkpoint and restart there). */
  readonly moveRunning: boolean;
}

export const DEFAULT_PREEMPTION: PreemptionOptions = {
  quantumSeconds: 30 * 60,
  minPriorityGap: 0.25,
  gainFactor: 1,
  moveRunning: true,
};

/** Throws a RangeError naming the first bad field. */
export const validatePreemption = (options: PreemptionOptions): PreemptionOptions => {
  const { quantumSeconds: q, minPriorityGap: g, gainFactor: f } = options;
  if (!(Number.isFinite(q) && q >= 0))
    throw new RangeError(`dally preemption: quantumSeconds must be a number ≥ 0, got ${q}`);
  if (!(Number.isFinite(g) && g >= 0))
    throw new RangeError(`dally preemption: minPriorityGap must be a number ≥ 0, got ${g}`);
  if (!(Number.isFinite(f) && f >= 0))
    throw new RangeError(`dally preemption: gainFactor must be a number ≥ 0, got ${f}`);
  return options;
};

/** A running job that may be preempted: eligible (quantum served, P high enough) and not protected this round. */
export interface VictimCandidate {
  readonly jobId: string;
  readonly priority: number;
  readonly slices: readonly HostSlice[];
}

export interface VictimChoice<T extends VictimCandidate = VictimCandidate> {
  readonly victims: readonly T[];
  /** The consolidation level of the domain the victims free. */
  readonly level: Level;
}

/** Whether a job may be preempted now: it has run a full quantum and is clearly less slowed than the beneficiary. */
export const isEligibleVictim = (
  victim: { readonly priority: number; readonly runningSince: number | undefined },
  beneficiaryPriority: number,
  now: number,
  options: PreemptionOptions,
): boolean =>
  victim.runningSince !== undefined &&
  now - victim.runningSince >= options.quantumSeconds &&
  victim.priority >= beneficiaryPriority + options.minPriorityGap;

/**
 * Network-sensitive victim choice: the fewest running jobs whose GPUs, with the free ones, give `gpus` GPUs inside one
 * machine, else one rack, else one network — never worse than `maxLevel`. In each domain victims are taken highest P
 * first (the least slowed give way), then any victim the others make unnecessary is spared. Among domains of the best
 * level: fewest victims, then fewest preempted GPUs, then the highest lowest-P victim set (so slowed jobs are spared).
 *
 * `candidates` are the eligible victims; `hosts` the usable hosts of the GPU type; `freeOf(hostId)` its free GPUs.
 */
export const chooseVictims = <T extends VictimCandidate>(
  gpus: number,
  maxLevel: Level,
  candidates: readonly T[],
  hosts: readonly Host[],
  freeOf: (hostId: string) => number,
): VictimChoice<T> | undefined => {
  if (candidates.length === 0 || gpus <= 0) return undefined;
  const byPriority = [...candidates].sort(
    (a, b) => b.priority - a.priority || (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0),
  );
  const hostById = new Map(hosts.map((h) => [h.id, h]));
  for (const level of LEVELS) {
    if (levelRank(level) > levelRank(maxLevel)) break;
    const domainOf = (host: Host): string =>
      level === 'machine' ? host.id : level === 'rack' ? host.rack : `${host.zone}/${host.network}`;
    const free = new Map<string, number>();
    for (const host of hosts) free.set(domainOf(host), (free.get(domainOf(host)) ?? 0) + freeOf(host.id));
    // GPUs each candidate holds inside each domain, candidates in P-descending order.
    const inside = new Map<string, { victim: T; gpus: number }[]>();
    for (const victim of byPriority) {
      const perDomain = new Map<string, number>();
      for (const slice of victim.slices) {
        const host = hostById.get(slice.hostId);
        if (host) perDomain.set(domainOf(host), (perDomain.get(domainOf(host)) ?? 0) + slice.gpus.length);
      }
      for (const [domain, n] of perDomain) {
        const list = inside.get(domain);
        if (list) list.push({ victim, gpus: n });
        else inside.set(domain, [{ victim, gpus: n }]);
      }
    }
    let best: { victims: T[]; gpus: number; minP: number; domain: string } | undefined;
    for (const [domain, list] of inside) {
      const chosen = minimalCover(gpus - (free.get(domain) ?? 0), list);
      if (!chosen) continue;
      const victims = chosen.map((c) => c.victim);
      const preempted = victims.reduce((n, v) => n + v.slices.reduce((m, s) => m + s.gpus.length, 0), 0);
      const minP = Math.min(...victims.map((v) => v.priority));
      if (
        !best ||
        victims.length < best.victims.length ||
        (victims.length === best.victims.length &&
          (preempted < best.gpus ||
            (preempted === best.gpus && (minP > best.minP || (minP === best.minP && domain < best.domain)))))
      ) {
        best = { victims, gpus: preempted, minP, domain };
      }
    }
    if (best) return { victims: best.victims, level };
  }
  return undefined;
};

/** Greedy cover of `needed` GPUs in list order, then drop (lowest P first) every member the rest make unnecessary. */
const minimalCover = <T extends { gpus: number }>(needed: number, list: readonly T[]): T[] | undefined => {
  if (needed <= 0) return undefined;
  const chosen: T[] = [];
  let got = 0;
  for (const entry of list) {
    if (got >= needed) break;
    chosen.push(entry);
    got += entry.gpus;
  }
  if (got < needed) return undefined;
  for (let i = chosen.length - 1; i >= 0; i--) {
    const entry = chosen[i]!;
    if (got - entry.gpus >= needed) {
      chosen.splice(i, 1);
      got -= entry.gpus;
    }
  }
  return chosen;
};

/**
 * The cost guard: preempting pays when the beneficiary's expected gain (GPU-seconds) exceeds `gainFactor` × the
 * checkpoint/restore GPU-seconds it causes — every victim's, plus the beneficiary's own restore when it resumes.
 */
export const preemptionPays = (c: {
  readonly gainGpuSeconds: number;
  readonly restartingGpus: number;
  readonly restartSeconds: number;
  readonly gainFactor: number;
}): boolean => c.gainGpuSeconds > c.gainFactor * c.restartingGpus * c.restartSeconds;
