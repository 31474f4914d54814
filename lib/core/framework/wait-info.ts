import type { GpuTypeId } from '../model/gpu.ts';
import type { JobState } from '../model/job.ts';
import { remainingIterations } from '../model/job.ts';
import type { PlacementShape } from '../model/perf.ts';
import { type Allocation, allocationGpuCount, type Plan, sameGpus } from '../model/plan.ts';
import { ThroughputMemo } from '../perf/memo.ts';
import { isHolding } from './compare.ts';
import { type FreeGpus, shapeOf } from './free-gpus.ts';
import type { DelayHold, Demand, RoundContext } from './stages.ts';
import { estimateStarts, type Holder, type Waiter } from './start-estimate.ts';

/** What a user sees about a job that waits: where it stands, why, and when it should start. */
export interface WaitInfo {
  /** 1-based among the waiting jobs, in the policy's order (unschedulable jobs come last). */
  readonly queuePosition: number;
  readonly waitReason: string;
  /** Absolute seconds on the scheduler clock; absent when no start can be foreseen. */
  readonly estimatedStart?: number;
}

export interface WaitInput {
  readonly ctx: RoundContext;
  /** Every active schedulable job, most important first (the order stage's output). */
  readonly ordered: readonly JobState[];
  readonly demands: ReadonlyMap<string, Demand>;
  readonly plan: Plan;
  /** The GPUs the plan leaves free. */
  readonly free: FreeGpus;
  readonly unschedulable: readonly { readonly jobId: string; readonly reason: string }[];
  /** The place stage's delay timer for a job it held back although GPUs were free (Dally). */
  readonly hold?: (job: JobState, demand: Demand) => DelayHold | undefined;
  /** The fewest GPUs the allocate stage may start a job on (`AllocateStage.smallestSize`); absent: its request. */
  readonly smallestSize?: (spec: JobState['spec']) => number;
}

/**
 * Queue position, reason and estimated start of every job the round leaves waiting (lib/core/framework/round.ts calls it after
 * the plan is final). Pure; O((planned + waiting) · types · log n).
 */
export const waitInfo = (input: WaitInput): Map<string, WaitInfo> => {
  const { plan } = input;
  const waiting = input.ordered.filter((job) => !plan.has(job.spec.id));
  const out = new Map<string, WaitInfo>();
  // Nobody waits (most rounds on a large cluster): no start to estimate, so no holder's finish either.
  if (waiting.length > 0) waitingInfo(input, waiting, out);
  input.unschedulable.forEach((u, i) => {
    out.set(u.jobId, { queuePosition: waiting.length + i + 1, waitReason: `unschedulable: ${u.reason}` });
  });
  return out;
};

/** Queue position, reason and estimated start of each waiting job, into `out`. */
const waitingInfo = (input: WaitInput, waiting: readonly JobState[], out: Map<string, WaitInfo>): void => {
  const { ctx } = input;
  const throughput = cachedThroughput(ctx);
  const holds = new Map<string, DelayHold>();
  const reasons = waiting.map((job, i) => reasonFor(job, i, input, holds));
  const starts = estimateStarts(
    ctx.now,
    new Map(input.free.gpuTypes().map((t) => [t, input.free.freeOf(t)])),
    holders(input, throughput),
    waiting.map((job) => waiter(job, input, throughput)),
  );
  waiting.forEach((job, i) => {
    const hold = holds.get(job.spec.id);
    const simulated = starts.get(job.spec.id);
    const start = hold && Number.isFinite(hold.seconds) ? ctx.now + hold.seconds : simulated;
    out.set(job.spec.id, {
      queuePosition: i + 1,
      waitReason: reasons[i]!,
      ...(start !== undefined ? { estimatedStart: start } : {}),
    });
  });
};

const reasonFor = (job: JobState, index: number, input: WaitInput, holds: Map<string, DelayHold>): string => {
  const ahead = index === 0 ? 'first in the queue' : index === 1 ? '1 job ahead' : `${index} jobs ahead`;
  if (isHolding(job)) return 'preempted: its GPUs go to a higher-priority job';
  const demand = input.demands.get(job.spec.id);
  if (demand?.elastic || (job.spec.elastic && job.spec.elastic.minGpus === 0))
    return `elastic: waiting for idle GPUs; ${ahead}`;
  if (demand) {
    const free = input.free.freeOf(demand.gpuType);
    if (free < demand.gpus) return `${demand.gpus} × ${demand.gpuType} needed, ${free} free; ${ahead}`;
    const hold = input.hold?.(job, demand);
    if (hold) {
      holds.set(job.spec.id, hold);
      return Number.isFinite(hold.seconds)
        ? `waiting up to ${describeSeconds(hold.seconds)} for one ${hold.level}`
        : `waiting for one ${hold.level} (no time limit)`;
    }
    return `${demand.gpus} × ${demand.gpuType} free but too spread out; waiting for them on fewer hosts`;
  }
  const type = bestType(job, input);
  if (!type) return `no GPU type it can use is in the cluster; ${ahead}`;
  const free = input.free.freeOf(type);
  const least = Math.min(job.spec.gpus, input.smallestSize?.(job.spec) ?? job.spec.gpus);
  if (free >= job.spec.gpus)
    return `held for a higher-priority job (${job.spec.gpus} × ${type} free); ${ahead}`;
  // A policy that resizes jobs (Crius's Cells) may start it on fewer than it asked: say so, not "needs them all".
  const fewer = least < job.spec.gpus ? `it may start on ${least}` : '';
  if (free >= least) return `held for a higher-priority job (${free} × ${type} free, ${fewer}); ${ahead}`;
  return `${job.spec.gpus} × ${type} needed${fewer && ` (${fewer})`}, ${free} free; ${ahead}`;
};

/** The usable type with the most free GPUs (ties: the larger type). */
const bestType = (job: JobState, input: WaitInput): GpuTypeId | undefined => {
  let best: GpuTypeId | undefined;
  for (const type of usableTypes(job, input.ctx)) {
    if (
      best === undefined ||
      input.free.freeOf(type) > input.free.freeOf(best) ||
      (input.free.freeOf(type) === input.free.freeOf(best) &&
        input.free.capacityOf(type) > input.free.capacityOf(best))
    )
      best = type;
  }
  return best;
};

const usableTypes = (job: JobState, ctx: RoundContext): GpuTypeId[] => {
  const allowed = job.spec.gpuTypes;
  return [...ctx.capacity.keys()].filter((t) => !allowed || allowed.length === 0 || allowed.includes(t));
};

type Throughput = (job: JobState, type: GpuTypeId, gpus: number, shape: PlacementShape) => number;

/** Iterations per second from the perf model, cached per (model, batch, type, count, shape): jobs share models. */
const cachedThroughput = (ctx: RoundContext): Throughput => {
  const cache = new ThroughputMemo<number>();
  return (job, gpuType, gpus, shape) => {
    const query = { model: job.spec.model, batchSize: job.spec.batchSize, gpuType, gpus, shape };
    return cache.get(query, () => ctx.perf.throughput(query).iterationsPerSecond);
  };
};

/** Each planned job's GPUs per type and estimated finish; a packed pair frees its GPUs when the later one ends. */
const holders = (input: WaitInput, throughput: Throughput): Holder[] => {
  const { ctx, plan } = input;
  const byId = new Map(input.ordered.map((j) => [j.spec.id, j]));
  const finish = new Map<string, number>();
  for (const [jobId, allocation] of plan) {
    const job = byId.get(jobId);
    if (job) finish.set(jobId, finishAt(job, allocation, ctx, throughput));
  }
  const out: Holder[] = [];
  for (const [jobId, allocation] of plan) {
    const partner = allocation.packedWith;
    if (partner && plan.has(partner) && partner < jobId) continue;
    const gpus = new Map<GpuTypeId, number>();
    for (const slice of allocation.slices) {
      const type = ctx.hostOf(slice.hostId)?.gpuType ?? allocation.gpuType;
      gpus.set(type, (gpus.get(type) ?? 0) + slice.gpus.length);
    }
    const own = finish.get(jobId) ?? Number.POSITIVE_INFINITY;
    const other = partner ? (finish.get(partner) ?? own) : own;
    out.push({ gpus, finishAt: Math.max(own, other) });
  }
  return out;
};

const finishAt = (
  job: JobState,
  allocation: Allocation,
  ctx: RoundContext,
  throughput: Throughput,
): number => {
  const remaining = remainingIterations(job);
  if (remaining <= 0) return ctx.now;
  const unchanged = isHolding(job) && sameGpus(job.allocation, allocation);
  const rate =
    unchanged && job.measuredThroughput && job.measuredThroughput > 0
      ? job.measuredThroughput
      : throughput(job, allocation.gpuType, allocationGpuCount(allocation), shapeOf(allocation, ctx.hostOf));
  const startup = unchanged ? 0 : ctx.config.restartSeconds;
  return rate > 0 ? ctx.now + startup + remaining / rate : Number.POSITIVE_INFINITY;
};

/**
 * Per usable type: the GPUs the job would take (its demand's count, else the fewest the allocate stage may start it
 * on: a policy that resizes starts it as soon as that many are free) and how long it would run.
 */
const waiter = (job: JobState, input: WaitInput, throughput: Throughput): Waiter => {
  const { ctx } = input;
  const demand = input.demands.get(job.spec.id);
  const options = new Map<GpuTypeId, { gpus: number; seconds: number }>();
  const requested = job.spec.elastic
    ? Math.max(1, job.spec.elastic.minGpus)
    : Math.min(job.spec.gpus, input.smallestSize?.(job.spec) ?? job.spec.gpus);
  for (const type of usableTypes(job, ctx)) {
    const capacity = ctx.capacity.get(type)!;
    const gpus = demand && !demand.elastic && demand.gpuType === type ? demand.gpus : requested;
    if (gpus > capacity.gpus) continue;
    const hosts = Math.ceil(gpus / Math.max(1, capacity.largestHost));
    const rate = throughput(job, type, gpus, { level: hosts === 1 ? 'machine' : 'network', hosts });
    if (!(rate > 0)) continue;
    options.set(type, { gpus, seconds: ctx.config.restartSeconds + remainingIterations(job) / rate });
  }
  return { jobId: job.spec.id, options };
};

/** "45 s", "4 min", "2.5 h": a wait as a person would say it. */
export const describeSeconds = (seconds: number): string => {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${hours < 10 ? Math.round(hours * 10) / 10 : Math.round(hours)} h`;
};
