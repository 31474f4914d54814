import { isHolding } from '../../framework/compare.ts';
import { type FreeGpus, levelOf } from '../../framework/free-gpus.ts';
import type { Demand, PlaceStage, RoundContext } from '../../framework/stages.ts';
import { allocationOf, withSlices } from '../../model/allocation-of.ts';
import type { Host, HostSlice } from '../../model/cluster.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';
import { type Allocation, allocationGpuCount } from '../../model/plan.ts';
import { type Level, levelRank } from '../../model/topology.ts';
import { acceptableLevel, effectiveTimers } from './delay-rule.ts';
import {
  chooseVictims,
  isEligibleVictim,
  type PreemptionOptions,
  preemptionPays,
  type VictimCandidate,
  validatePreemption,
} from './preemption.ts';
import { type PriorityFormula, priorities } from './priority.ts';
import { recordAcceptedWaits } from './record-waits.ts';
import { type TimerSource, timersFor } from './timers.ts';
import { type LevelCapacity, levelCapacities } from './topology.ts';

export interface DelayPlacementOptions {
  readonly timers: TimerSource;
  /** Must match the order stage's formula: victims are chosen by the same P. */
  readonly formula: PriorityFormula;
  /** Network-sensitive preemption; undefined = never preempt or move a running job. */
  readonly preemption?: PreemptionOptions;
}

/**
 * Dally's placement (specs/dally.md §2–3). Running jobs keep their GPUs. Then, in the order stage's P order:
 * - a waiting job is offered the most consolidated free GPUs and accepts by Algorithm 1 (its delay timers give the
 *   worst level it takes now); with no acceptable offer it may preempt clearly less-slowed running jobs;
 * - a running job on a placement worse than its size allows (a worse level, or more hosts than needed) is offered a
 *   better-consolidated one (free, or freed by preemption) and moves when the communication time it saves exceeds
 *   the checkpoint/restore it costs.
 * Jobs started or moved this round are never victims, and victims are not re-placed in the round that preempts them.
 * `nextState` records, for the auto-tuner, how long each job that accepted a machine or rack offer had waited.
 */
export const delayPlacement = (options: DelayPlacementOptions): PlaceStage => {
  const preemption = options.preemption ? validatePreemption(options.preemption) : undefined;
  const timerName =
    options.timers.kind === 'auto'
      ? 'auto'
      : `${options.timers.timers.machine}s+${options.timers.timers.rack}s`;
  return {
    name: `dally-delay(${timerName}${preemption ? ',preempt' : ''})`,
    place: (ordered, demands, free, ctx) =>
      new DelayRound(options, preemption, ordered, free, ctx).run(demands),
    holds: (ctx) => {
      const capacities = levelCapacities(ctx.cluster);
      return (job, demand) => {
        const capacity = capacities.get(demand.gpuType);
        if (!capacity) return undefined;
        const timers = effectiveTimers(
          timersFor(options.timers, ctx.state, demand.gpus, ctx.now),
          demand.gpus,
          capacity,
        );
        const waited = ctx.now - job.waitingSince;
        const level = acceptableLevel(waited, timers);
        if (level === 'network') return undefined;
        const until = level === 'machine' ? timers.machine : timers.machine + timers.rack;
        return { level, seconds: Math.max(0, until - waited) };
      };
    },
    nextState: (ordered, plan, ctx) =>
      options.timers.kind === 'auto'
        ? recordAcceptedWaits(ordered, plan, ctx, options.timers.tuner)
        : ctx.state,
  };
};

/** One round of Dally placement: the plan under construction and the bookkeeping preemption needs. */
class DelayRound {
  private readonly plan = new Map<string, Allocation>();
  /** Free GPUs per host, kept in step with `free` (FreeGpus answers placements, this answers victim searches). */
  private readonly hostFree = new Map<string, number>();
  private readonly hostsByType = new Map<string, Host[]>();
  /** Usable hosts per GPU type, rack and network: the domains an offer at that level comes from. */
  private readonly domains = new Map<string, { rack: Map<string, Host[]>; network: Map<string, Host[]> }>();
  private readonly capacity: Map<string, LevelCapacity>;
  private readonly priority: Map<string, number>;
  /** Started or moved this round: never a victim. */
  private readonly protectedJobs = new Set<string>();
  private readonly victims = new Set<string>();
  private readonly byId: Map<string, JobState>;

  constructor(
    private readonly options: DelayPlacementOptions,
    private readonly preemption: PreemptionOptions | undefined,
    private readonly ordered: readonly JobState[],
    private readonly free: FreeGpus,
    private readonly ctx: RoundContext,
  ) {
    this.capacity = levelCapacities(ctx.cluster);
    this.priority = priorities(ordered, ctx, options.formula);
    this.byId = new Map(ordered.map((j) => [j.spec.id, j]));
    for (const host of ctx.cluster.hosts) {
      if (host.state === 'lost' || host.state === 'draining') continue;
      let free = 0;
      for (let g = 0; g < host.gpuCount; g++) if (this.free.isFree(host.id, g)) free++;
      this.hostFree.set(host.id, free);
      const list = this.hostsByType.get(host.gpuType);
      if (list) list.push(host);
      else this.hostsByType.set(host.gpuType, [host]);
      let d = this.domains.get(host.gpuType);
      if (!d) {
        d = { rack: new Map(), network: new Map() };
        this.domains.set(host.gpuType, d);
      }
      push(d.rack, host.rack, host);
      push(d.network, `${host.zone}/${host.network}`, host);
    }
  }

  run(demands: ReadonlyMap<string, Demand>): Map<string, Allocation> {
    for (const job of this.ordered) {
      if (isHolding(job) && this.free.canReserve(job.allocation!)) this.take(job.spec.id, job.allocation!);
    }
    for (const job of this.ordered) {
      const id = job.spec.id;
      const demand = demands.get(id);
      if (!demand || this.victims.has(id)) continue;
      if (!isHolding(job)) this.offerToWaiting(job, demand);
      else if (this.preemption?.moveRunning && this.plan.has(id)) this.offerToRunning(job);
    }
    return this.plan;
  }

  /** Algorithm 1, then preemption when no acceptable offer exists. */
  private offerToWaiting(job: JobState, demand: Demand): void {
    const { gpuType, gpus } = demand;
    const capacity = this.capacity.get(gpuType);
    if (!capacity) return;
    const now = this.ctx.now;
    const timers = effectiveTimers(timersFor(this.options.timers, this.ctx.state, gpus, now), gpus, capacity);
    let maxLevel = acceptableLevel(now - job.waitingSince, timers);
    if (demand.maxLevel && levelRank(demand.maxLevel) < levelRank(maxLevel)) maxLevel = demand.maxLevel;

    const offer = this.bestOffer(gpuType, gpus, maxLevel);
    if (offer) {
      this.start(job.spec.id, allocationOf(gpuType, offer.slices, demand.cell || undefined));
      return;
    }
    if (!this.preemption) return;
    const choice = this.victimsFor(job, gpuType, gpus, maxLevel);
    if (!choice) return;
    // Gain: the waiter starts now instead of when the victims' GPUs would free anyway.
    const freeIn = Math.max(...choice.victims.map((v) => this.remainingSeconds(this.byId.get(v.jobId)!)));
    const restartingGpus = sumGpus(choice.victims) + (job.progress > 0 ? gpus : 0);
    if (!this.pays(gpus * freeIn, restartingGpus)) return;
    for (const victim of choice.victims) this.evict(victim.jobId);
    const freed = this.bestOffer(gpuType, gpus, maxLevel);
    if (!freed) throw new Error(`dally: preempting for ${job.spec.id} freed no placement (internal error)`);
    this.start(job.spec.id, allocationOf(gpuType, freed.slices, demand.cell || undefined));
  }

  /**
   * Offer a running job a better-consolidated placement — a better level, or fewer hosts at its level — free or freed
   * by preemption, and move it when the communication time saved pays for its and the victims' restarts.
   */
  private offerToRunning(job: JobState): void {
    const id = job.spec.id;
    const current = this.plan.get(id)!;
    const gpus = allocationGpuCount(current);
    const capacity = this.capacity.get(current.gpuType);
    if (!capacity || current.packedWith) return;
    const level = levelOf(current, this.ctx.hostOf);
    const bestLevel: Level =
      gpus <= capacity.machine ? 'machine' : gpus <= capacity.rack ? 'rack' : 'network';
    const fewestHosts = Math.ceil(gpus / Math.max(1, capacity.machine));
    if (level === bestLevel && current.slices.length <= fewestHosts) return;

    this.give(id);
    let victims: readonly PlacedVictim[] = [];
    let offer = this.bestOffer(current.gpuType, gpus, level);
    let moved = offer ? withSlices(current, offer.slices) : undefined;
    if (!moved || !this.faster(job, moved, current)) {
      const choice = this.victimsFor(job, current.gpuType, gpus, level);
      if (choice) {
        for (const v of choice.victims) this.give(v.jobId);
        offer = this.bestOffer(current.gpuType, gpus, level);
        for (const v of choice.victims) this.take(v.jobId, v.allocation);
        victims = choice.victims;
        moved = offer ? withSlices(current, offer.slices) : undefined;
      }
    }
    const saved = moved ? this.iterationSeconds(job, current) - this.iterationSeconds(job, moved) : 0;
    const gain = gpus * remainingIterations(job) * saved;
    if (!moved || saved <= 0 || !this.pays(gain, gpus + sumGpus(victims))) {
      this.take(id, current);
      return;
    }
    for (const v of victims) this.evict(v.jobId);
    this.start(id, moved);
  }

  private faster(job: JobState, a: Allocation, b: Allocation): boolean {
    return this.iterationSeconds(job, a) < this.iterationSeconds(job, b);
  }

  /**
   * The most consolidated free GPUs not worse than `maxLevel`: the best-fitting machine, else the rack (then network)
   * where they span the fewest hosts — the tightest such domain on ties — filled from its emptiest hosts.
   */
  private bestOffer(
    gpuType: string,
    gpus: number,
    maxLevel: Level,
  ): { slices: HostSlice[]; level: Level } | undefined {
    const machine = this.free.find(gpuType, gpus, 'machine');
    if (machine || maxLevel === 'machine') return machine;
    const domains = this.domains.get(gpuType);
    if (!domains) return undefined;
    for (const level of ['rack', 'network'] as const) {
      if (levelRank(level) > levelRank(maxLevel)) break;
      let best: { hosts: Host[]; total: number } | undefined;
      for (const members of domains[level].values()) {
        const total = members.reduce((n, h) => n + (this.hostFree.get(h.id) ?? 0), 0);
        if (total < gpus) continue;
        const used = fillFromEmptiest(members, gpus, (h) => this.hostFree.get(h.id) ?? 0);
        if (
          !best ||
          used.length < best.hosts.length ||
          (used.length === best.hosts.length && total < best.total)
        )
          best = { hosts: used, total };
      }
      if (best) return { slices: this.slicesOn(best.hosts, gpus), level };
    }
    return undefined;
  }

  /** `gpus` free GPUs taken from `hosts` in order. */
  private slicesOn(hosts: readonly Host[], gpus: number): HostSlice[] {
    const slices: HostSlice[] = [];
    let needed = gpus;
    for (const host of hosts) {
      const indices: number[] = [];
      for (let g = 0; g < host.gpuCount && indices.length < needed; g++)
        if (this.free.isFree(host.id, g)) indices.push(g);
      if (indices.length > 0) slices.push({ hostId: host.id, gpus: indices });
      needed -= indices.length;
    }
    if (needed > 0) throw new Error('dally: free-GPU bookkeeping out of step (internal error)');
    return slices;
  }

  private victimsFor(job: JobState, gpuType: string, gpus: number, maxLevel: Level) {
    const p = this.priority.get(job.spec.id)!;
    const candidates: PlacedVictim[] = [];
    for (const [id, allocation] of this.plan) {
      if (id === job.spec.id || this.protectedJobs.has(id) || allocation.gpuType !== gpuType) continue;
      if (allocation.packedWith) continue;
      const other = this.byId.get(id)!;
      const priority = this.priority.get(id)!;
      if (
        !isEligibleVictim({ priority, runningSince: other.runningSince }, p, this.ctx.now, this.preemption!)
      )
        continue;
      candidates.push({ jobId: id, priority, slices: allocation.slices, allocation });
    }
    return chooseVictims(
      gpus,
      maxLevel,
      candidates,
      this.hostsByType.get(gpuType) ?? [],
      (h) => this.hostFree.get(h) ?? 0,
    );
  }

  private pays(gainGpuSeconds: number, restartingGpus: number): boolean {
    return preemptionPays({
      gainGpuSeconds,
      restartingGpus,
      restartSeconds: this.ctx.config.restartSeconds,
      gainFactor: this.preemption!.gainFactor,
    });
  }

  /** Estimated seconds per iteration of the job on an allocation (the scheduler's model). */
  private iterationSeconds(job: JobState, allocation: Allocation): number {
    const rate = this.ctx.perf.throughput({
      model: job.spec.model,
      batchSize: job.spec.batchSize,
      gpuType: allocation.gpuType,
      gpus: allocationGpuCount(allocation),
      shape: { level: levelOf(allocation, this.ctx.hostOf), hosts: allocation.slices.length },
    }).iterationsPerSecond;
    return rate > 0 ? 1 / rate : Number.POSITIVE_INFINITY;
  }

  /** Seconds until a running job would finish where it is: measured speed when reported, else estimated. */
  private remainingSeconds(job: JobState): number {
    const measured = job.measuredThroughput;
    const perIteration =
      measured && measured > 0 ? 1 / measured : this.iterationSeconds(job, this.plan.get(job.spec.id)!);
    return remainingIterations(job) * perIteration;
  }

  private start(id: string, allocation: Allocation): void {
    this.take(id, allocation);
    this.protectedJobs.add(id);
  }

  private take(id: string, allocation: Allocation): void {
    this.free.reserve(allocation);
    this.plan.set(id, allocation);
    for (const s of allocation.slices)
      this.hostFree.set(s.hostId, (this.hostFree.get(s.hostId) ?? 0) - s.gpus.length);
  }

  /** Return a job's GPUs to the free pool without deciding its fate yet. */
  private give(id: string): void {
    const allocation = this.plan.get(id)!;
    this.free.release(allocation);
    this.plan.delete(id);
    for (const s of allocation.slices)
      this.hostFree.set(s.hostId, (this.hostFree.get(s.hostId) ?? 0) + s.gpus.length);
  }

  private evict(id: string): void {
    this.give(id);
    this.victims.add(id);
  }
}

/** The fewest hosts (emptiest first, then cluster order) that hold `gpus` free GPUs. */
const fillFromEmptiest = (hosts: readonly Host[], gpus: number, freeOf: (h: Host) => number): Host[] => {
  const sorted = hosts.filter((h) => freeOf(h) > 0).sort((a, b) => freeOf(b) - freeOf(a));
  const used: Host[] = [];
  let got = 0;
  for (const host of sorted) {
    if (got >= gpus) break;
    used.push(host);
    got += freeOf(host);
  }
  return used;
};

const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

/** A victim candidate with the allocation to give back if the preemption is called off. */
interface PlacedVictim extends VictimCandidate {
  readonly allocation: Allocation;
}

const sumGpus = (victims: readonly VictimCandidate[]): number =>
  victims.reduce((n, v) => n + v.slices.reduce((m, s) => m + s.gpus.length, 0), 0);
