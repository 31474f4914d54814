import type { Action } from '../model/action.ts';
import type { Cluster, Host } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import { isActive, type JobSpec, type JobState } from '../model/job.ts';
import type { PerfModel } from '../model/perf.ts';
import { type Allocation, allocationGpuCount, busyGpuCount, type Plan, sameGpus } from '../model/plan.ts';
import { type SchedulerState, schedulerStateWith } from '../model/state.ts';
import { capacityKey } from './capacity-key.ts';
import { isHolding } from './compare.ts';
import { contextWithState } from './context-with-state.ts';
import { neverProgressesReason, unschedulableReason } from './estimates.ts';
import { FreeGpus } from './free-gpus.ts';
import { memoKey, RoundMemo } from './round-memo.ts';
import { RoundScratch } from './scratch.ts';
import {
  type AllocateStage,
  DEFAULT_ROUND_CONFIG,
  type Policy,
  type RoundConfig,
  type RoundContext,
  type TypeCapacity,
} from './stages.ts';
import { capacityByType } from './type-capacity.ts';
import { type WaitInfo, waitInfo } from './wait-info.ts';

export interface RoundInput {
  readonly now: number;
  readonly cluster: Cluster;
  /** Every job the scheduler knows; terminal ones are ignored. */
  readonly jobs: readonly JobState[];
  readonly state: SchedulerState;
  readonly policy: Policy;
  readonly perf: PerfModel;
  readonly config?: Partial<RoundConfig>;
  /**
   * Derived data the caller carries from round to round (lib/core/framework/round-memo.ts): pass the same memo every
   * round to skip recomputing what did not change; without one the round starts cold. Same plan either way.
   */
  readonly memo?: RoundMemo;
}

export interface Unschedulable {
  readonly jobId: string;
  readonly reason: string;
}

export interface RoundStats {
  readonly round: number;
  readonly activeJobs: number;
  readonly runningJobs: number;
  readonly waitingJobs: number;
  readonly busyGpus: number;
  readonly started: number;
  readonly preempted: number;
  readonly migrated: number;
  readonly rescaled: number;
  readonly unschedulable: readonly Unschedulable[];
}

export interface RoundOutput {
  readonly plan: Plan;
  readonly actions: readonly Action[];
  readonly state: SchedulerState;
  readonly stats: RoundStats;
  /** Every job left waiting (and every unschedulable one): queue position, reason, estimated start. */
  readonly waiting: ReadonlyMap<string, WaitInfo>;
}

/**
 * One scheduling round: order → allocate → place → pack → migrate, then the actions that turn the current
 * allocations into the plan. Pure: the same input gives the same output.
 */
export const scheduleRound = (input: RoundInput): RoundOutput => {
  const { policy } = input;
  const ctx = roundContext(input);
  const unschedulable: Unschedulable[] = [];
  let active: JobState[] = [];
  const { allocate } = policy;
  for (const given of input.jobs) {
    if (!isActive(given.status)) continue;
    const job = uniformJob(given);
    const reason = whyUnschedulable(job.spec, allocate, ctx, isHolding(job));
    if (reason) unschedulable.push({ jobId: job.spec.id, reason });
    else active.push(job);
  }
  const rejected = policy.allocate.reject?.(active, ctx) ?? [];
  if (rejected.length > 0) {
    const ids = new Set(rejected.map((r) => r.jobId));
    unschedulable.push(...rejected);
    active = active.filter((job) => !ids.has(job.spec.id));
  }

  const ordered = policy.order.order(active, ctx);
  const demands = policy.allocate.allocate(ordered, ctx);
  const free = new FreeGpus(input.cluster, ctx.memo);
  let plan = policy.place.place(ordered, demands, free, ctx);
  if (policy.pack) plan = policy.pack.pack(ordered, plan, free, ctx);
  if (policy.migrate) plan = policy.migrate.relabel(ordered, plan, free, ctx);

  // Learning stages fold the round's outcome into the state, in pipeline order (each sees the previous one's update).
  let state = input.state;
  for (const stage of [policy.order, policy.allocate, policy.place, policy.pack, policy.migrate]) {
    if (stage?.nextState) state = stage.nextState(ordered, plan, contextWithState(ctx, state));
  }

  const actions = diffActions(ordered, plan, unschedulable);
  const hold = policy.place.holds?.(ctx);
  const waiting = waitInfo({
    ctx,
    ordered,
    demands,
    plan,
    free,
    unschedulable,
    ...(hold ? { hold } : {}),
    ...(policy.allocate.smallestSize ? { smallestSize: policy.allocate.smallestSize } : {}),
  });
  const counts = actionCounts(actions);
  return {
    plan,
    actions,
    state: schedulerStateWith(state, { round: input.state.round + 1, lastRoundAt: input.now }),
    stats: {
      round: input.state.round + 1,
      activeJobs: active.length,
      runningJobs: plan.size,
      waitingJobs: active.length - plan.size,
      busyGpus: busyGpuCount(plan),
      ...counts,
      unschedulable,
    },
    waiting,
  };
};

/** The round's starts, preemptions, migrations and rescales, in one pass over the actions. */
const actionCounts = (
  actions: readonly Action[],
): Pick<RoundStats, 'started' | 'preempted' | 'migrated' | 'rescaled'> => {
  let started = 0;
  let preempted = 0;
  let migrated = 0;
  let rescaled = 0;
  for (const a of actions) {
    if (a.kind === 'start') started++;
    else if (a.kind === 'stop' && a.reason === 'preempted') preempted++;
    else if (a.kind === 'migrate') migrated++;
    else if (a.kind === 'rescale') rescaled++;
  }
  return { started, preempted, migrated, rescaled };
};

/**
 * Why a job can never run: no allowed type is large enough (asked of waiting jobs only: a running job keeps what it
 * holds when hosts are lost), or it makes no progress on any allocation the allocation stage may give it (see
 * `AllocateStage.sizes`; asked of every job, so none holds GPUs at rate 0).
 */
const whyUnschedulable = (
  spec: JobSpec,
  allocate: AllocateStage,
  ctx: RoundContext,
  holding: boolean,
): string | undefined => {
  // Asked of every job every round, and a function of the spec, the capacity, the perf model and the stage alone.
  const known = ctx.memo.of(spec, UNSCHEDULABLE, () => []);
  const key = capacityKey(ctx);
  const slot = holding ? 1 : 0;
  const entry = known[slot];
  if (entry && entry.capacity === key && entry.perf === ctx.perf && entry.allocate === allocate)
    return entry.reason;
  const reason = computeWhyUnschedulable(spec, allocate, ctx, holding);
  known[slot] = { capacity: key, perf: ctx.perf, allocate, reason };
  return reason;
};

interface UnschedulableEntry {
  readonly capacity: string;
  readonly perf: PerfModel;
  readonly allocate: AllocateStage;
  readonly reason: string | undefined;
}
/** Per spec: the answer for a waiting [0] and a holding [1] job. */
const UNSCHEDULABLE = memoKey<(UnschedulableEntry | undefined)[]>('why unschedulable');

const computeWhyUnschedulable = (
  spec: JobSpec,
  allocate: AllocateStage,
  ctx: RoundContext,
  holding: boolean,
): string | undefined => {
  const reason = holding ? undefined : unschedulableReason(spec, ctx);
  if (reason) return reason;
  const counts = allocate.sizes ? allocate.sizes(spec, ctx) : allocate.reject ? undefined : [spec.gpus];
  return counts ? neverProgressesReason(spec, counts, ctx) : undefined;
};

/**
 * The job with every field present, in one order. Callers build job states in many ways (spreads with conditional
 * fields, parsed JSON); objects of one shape keep every stage's property reads monomorphic, which on a 10,000-job
 * round is worth several times the copy. Absent fields become `undefined`, which no stage tells apart.
 */
const uniformJob = (job: JobState): JobState => ({
  spec: job.spec,
  status: job.status,
  progress: job.progress,
  attainedService: job.attainedService,
  runningSeconds: job.runningSeconds,
  waitingSince: job.waitingSince,
  runningSince: job.runningSince,
  allocation: job.allocation,
  measuredThroughput: job.measuredThroughput,
  restarts: job.restarts,
  migrations: job.migrations,
  finishTime: job.finishTime,
  failureReason: job.failureReason,
});

export const roundContext = (input: RoundInput): RoundContext => {
  const memo = input.memo ?? new RoundMemo();
  const { hosts, capacity } = memo.of(input.cluster, CLUSTER_INDEX, () => clusterIndex(input.cluster));
  return {
    now: input.now,
    cluster: input.cluster,
    perf: input.perf,
    config: { ...DEFAULT_ROUND_CONFIG, ...input.policy.config, ...input.config },
    state: input.state,
    hostOf: (id) => hosts.get(id),
    capacity,
    scratch: new RoundScratch(),
    memo,
  };
};

interface ClusterIndex {
  readonly hosts: ReadonlyMap<string, Host>;
  readonly capacity: ReadonlyMap<GpuTypeId, TypeCapacity>;
}

/** Per cluster object (a shell that keeps its cluster keeps its index): hosts by id, usable capacity per type. */
const CLUSTER_INDEX = memoKey<ClusterIndex>('cluster index');

const clusterIndex = (cluster: Cluster): ClusterIndex => {
  const hosts = new Map<string, Host>(cluster.hosts.map((h) => [h.id, h]));
  const usable = cluster.hosts.filter((h) => h.state !== 'lost' && h.state !== 'draining');
  return { hosts, capacity: capacityByType(usable) };
};

/** Turn "who holds what now" and the plan into actions, in priority order (stops before starts frees GPUs first). */
export const diffActions = (
  ordered: readonly JobState[],
  plan: Plan,
  unschedulable: readonly Unschedulable[],
): Action[] => {
  const stops: Action[] = [];
  const moves: Action[] = [];
  for (const u of unschedulable) stops.push({ kind: 'stop', jobId: u.jobId, reason: 'unschedulable' });
  for (const job of ordered) {
    const current = isHolding(job) ? job.allocation : undefined;
    const next: Allocation | undefined = plan.get(job.spec.id);
    const resumeStep = Math.floor(job.progress);
    if (current && !next) stops.push({ kind: 'stop', jobId: job.spec.id, reason: 'preempted' });
    else if (!current && next)
      moves.push({ kind: 'start', jobId: job.spec.id, allocation: next, resumeStep });
    else if (current && next && !sameGpus(current, next)) {
      const kind = allocationGpuCount(current) === allocationGpuCount(next) ? 'migrate' : 'rescale';
      moves.push({ kind, jobId: job.spec.id, from: current, to: next, resumeStep });
    }
  }
  return [...stops, ...moves];
};
