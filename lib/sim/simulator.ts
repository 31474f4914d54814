import { findGpuType } from '../core/catalog/gpus.ts';
import { getInstanceOffering, instanceOfferingsFor } from '../core/catalog/instances.ts';
import { shapeOf } from '../core/framework/free-gpus.ts';
import { type RoundOutput, scheduleRound } from '../core/framework/round.ts';
import { RoundMemo } from '../core/framework/round-memo.ts';
import type { Policy, RoundConfig, TypeCapacity } from '../core/framework/stages.ts';
import { capacityByType } from '../core/framework/type-capacity.ts';
import type { Action } from '../core/model/action.ts';
import type { Cluster, Host } from '../core/model/cluster.ts';
import { type JobSpec, type JobState, type JobStatus, newJobState } from '../core/model/job.ts';
import type { PerfModel, ThroughputEstimate, ThroughputQuery } from '../core/model/perf.ts';
import { type Allocation, allocationGpuCount, sameGpus } from '../core/model/plan.ts';
import { initialSchedulerState, type SchedulerState } from '../core/model/state.ts';
import { UserModelPerfModel } from '../core/perf/user-models.ts';
import { elasticExecutorThroughput } from './elastic.ts';
import { bestElasticRate } from './elastic-lower-bound.ts';
import { trueIterations } from './length-noise.ts';
import { uniformSpec } from './uniform-spec.ts';
import { SimulatedProfiles } from './user-models.ts';

export interface SimConfig {
  /** Seconds between scheduled rounds; rounds also run on arrivals and completions. */
  readonly roundSeconds: number;
  /** Seconds a job makes no progress after a restart, migration or rescale (checkpoint + restore). */
  readonly restartSeconds: number;
  /** Stop simulating at this time (seconds after the first arrival); unfinished jobs are reported as such. */
  readonly horizonSeconds: number;
  /** Rounds in a row with waiting jobs, nothing running and nothing arriving before the simulator declares a stall. */
  readonly stallRounds: number;
  readonly seed: number;
  /**
   * Spread f of the seeded length noise (lib/sim/length-noise.ts): each job really runs its declared iterations ×
   * m, m log-uniform in [1/f, f] from the seed and its id, while the scheduler still sees the declared iterations.
   * 1 = none (default); 2 = ×0.5–×2.
   */
  readonly lengthNoise: number;
}

export const DEFAULT_SIM_CONFIG: SimConfig = {
  roundSeconds: 60,
  restartSeconds: 30,
  horizonSeconds: 365 * 86_400,
  stallRounds: 1_000,
  seed: 0,
  lengthNoise: 1,
};

/** The executor's model: a PerfModel, optionally with per-(job, allocation) noise bounded by `maxJobNoise`. */
export interface ExecutorModel extends PerfModel {
  jobThroughput?(jobId: string, allocation: Allocation, query: ThroughputQuery): ThroughputEstimate;
  readonly maxJobNoise?: number;
}

export interface SimInput {
  readonly cluster: Cluster;
  readonly jobs: readonly JobSpec[];
  readonly policy: Policy;
  /** What the scheduler believes. */
  readonly perf: PerfModel;
  /** What really happens (the executor's model); defaults to `perf`. */
  readonly truth?: ExecutorModel;
  readonly config?: Partial<SimConfig>;
  /** Called now and then with the fraction of jobs that have ended. */
  readonly onProgress?: (fraction: number, simSeconds: number) => void;
  /** Observer of every round's outcome (tests check invariants on it). */
  readonly onRound?: (now: number, output: RoundOutput) => void;
  /**
   * Observer of the executor after every round: each running job's iterations per second from now on, and when
   * its restart pause ends (benchmarks integrate cluster throughput from it).
   */
  readonly onRates?: (now: number, running: readonly RunningRate[]) => void;
}

export interface RunningRate {
  readonly jobId: string;
  readonly rate: number;
  readonly pausedUntil: number;
}

export type JobOutcome = 'completed' | 'unschedulable' | 'stalled' | 'unfinished';

export interface JobRecord {
  readonly id: string;
  readonly model: string;
  readonly gpus: number;
  readonly submitTime: number;
  readonly firstStart?: number;
  readonly finishTime?: number;
  readonly outcome: JobOutcome;
  readonly reason?: string;
  readonly jct?: number;
  /** Time without GPUs between arrival and the end (or the horizon). */
  readonly queueing: number;
  readonly runningSeconds: number;
  readonly gpuSeconds: number;
  /** Exposed communication seconds (iterations × per-iteration communication on its placements). */
  readonly commSeconds: number;
  /** On-demand dollars for the GPUs it held (hosts whose GPU type has no EC2 price count in `unpricedGpuSeconds`). */
  readonly cost: number;
  readonly unpricedGpuSeconds: number;
  readonly restarts: number;
  readonly migrations: number;
  /** JCT alone on its best allocation from its arrival, under the executor's model. */
  readonly jctLowerBound: number;
  readonly lastGpuType?: string;
}

export interface TimePoint {
  readonly t: number;
  readonly busyGpus: number;
  readonly runningJobs: number;
  readonly waitingJobs: number;
}

export interface SimResult {
  readonly policy: string;
  readonly cluster: string;
  readonly totalGpus: number;
  readonly jobs: readonly JobRecord[];
  readonly timeline: readonly TimePoint[];
  /** First arrival to last completion, in seconds. */
  readonly makespan: number;
  readonly busyGpuSeconds: number;
  readonly rounds: number;
  readonly endTime: number;
  readonly startTime: number;
}

interface SimJob {
  spec: JobSpec;
  /** True iterations (the declared ones under length noise); the scheduler only sees `spec.iterations`. */
  work: number;
  status: JobStatus;
  progress: number;
  attainedService: number;
  runningSeconds: number;
  waitingSince: number;
  runningSince?: number;
  allocation?: Allocation;
  restarts: number;
  migrations: number;
  finishTime?: number;
  firstStart?: number;
  failureReason?: string;
  outcome?: JobOutcome;
  /** Iterations per second on the current allocation, under the executor's model. */
  rate: number;
  commPerIteration: number;
  /** Dollars per second and unpriced GPUs of the current allocation. */
  dollarsPerSecond: number;
  unpricedGpus: number;
  cost: number;
  unpricedGpuSeconds: number;
  pausedUntil: number;
  commSeconds: number;
  measuredThroughput?: number;
  /** What `rate` was computed for: the allocation and the packed partner then holding GPUs (rates are pure in them). */
  rateInputs?: { readonly allocation: Allocation; readonly partner: SimJob | undefined };
  /** The scheduler's last view of the job (`view` gives it again while nothing in it changed). */
  view?: JobState;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A new job with every field present from the start, in one order: the simulator's loops then see one object shape
 * (fields added later, one job at a time, would give jobs many shapes and make every property access slow).
 */
const newSimJob = (spec: JobSpec, work: number): SimJob => {
  const state = newJobState(spec);
  return {
    spec,
    work,
    status: state.status,
    progress: state.progress,
    attainedService: state.attainedService,
    runningSeconds: state.runningSeconds,
    waitingSince: state.waitingSince,
    runningSince: undefined,
    allocation: undefined,
    restarts: state.restarts,
    migrations: state.migrations,
    finishTime: undefined,
    firstStart: undefined,
    failureReason: undefined,
    outcome: undefined,
    rate: 0,
    commPerIteration: 0,
    dollarsPerSecond: 0,
    unpricedGpus: 0,
    cost: 0,
    unpricedGpuSeconds: 0,
    pausedUntil: 0,
    commSeconds: 0,
    measuredThroughput: undefined,
    rateInputs: undefined,
    view: undefined,
  };
};

const EPSILON = 1e-9;

/**
 * Discrete-event simulation of a policy on a trace: arrivals, completions and rounds are the events; between them
 * every running job progresses at the executor model's rate for its allocation (and co-location partner).
 */
export const simulate = (input: SimInput): SimResult => {
  const config: SimConfig = { ...DEFAULT_SIM_CONFIG, ...input.config };
  // Read before the loop: policies' objects differ in shape, and the loop's optimised code would deoptimise on it.
  const policyName = input.policy.name;
  const truth: ExecutorModel = input.truth ?? input.perf;
  // Models outside the catalog are calibrated from the executor's reports, as the AWS round does from Profiles.
  const profiles = input.perf instanceof UserModelPerfModel ? new SimulatedProfiles(input.perf) : undefined;
  const hosts = new Map<string, Host>(input.cluster.hosts.map((h) => [h.id, h]));
  const hostOf = (id: string) => hosts.get(id);
  // Each host's GPU price, looked up once per run: a job's rate is recomputed whenever its allocation object changes
  // (tessera's relabelling and packing make new ones most rounds), and the fallback filters and sorts the catalog.
  const prices = new Map<string, number | undefined>();
  const priceOfHost = (id: string): number | undefined => {
    if (prices.has(id)) return prices.get(id);
    const price = hostPricePerGpuSecond(hosts.get(id));
    prices.set(id, price);
    return price;
  };
  const totalGpus = input.cluster.hosts.reduce((n, h) => n + h.gpuCount, 0);
  const roundConfig: Partial<RoundConfig> = {
    roundSeconds: config.roundSeconds,
    restartSeconds: config.restartSeconds,
    seed: config.seed,
  };

  const arrivals = [...input.jobs].sort((a, b) => a.submitTime - b.submitTime || (a.id < b.id ? -1 : 1));
  const ids = new Set<string>();
  for (const spec of arrivals) {
    if (ids.has(spec.id)) throw new Error(`simulate: duplicate job id ${spec.id}`);
    ids.add(spec.id);
  }
  const all: SimJob[] = [];
  const active = new Map<string, SimJob>();
  const timeline: TimePoint[] = [];
  const startTime = arrivals[0]?.submitTime ?? 0;
  const horizon = startTime + config.horizonSeconds;
  let now = startTime;
  let nextArrival = 0;
  let nextRound = startTime;
  let state: SchedulerState = initialSchedulerState();
  // Derived data the core reuses from round to round (the same plan as without it, only sooner).
  const memo = new RoundMemo();
  let busyGpuSeconds = 0;
  let busyGpus = 0;
  let ended = 0;
  let idleRounds = 0;
  let waitingJobs = 0;
  let lastProgressReport = -1;

  const rateOf = (job: SimJob): void => {
    if (!job.allocation) {
      job.rate = 0;
      job.commPerIteration = 0;
      job.dollarsPerSecond = 0;
      job.unpricedGpus = 0;
      job.rateInputs = undefined;
      return;
    }
    const holdingPartner = job.allocation.packedWith ? active.get(job.allocation.packedWith) : undefined;
    const partnerNow = holdingPartner?.allocation ? holdingPartner : undefined;
    // Same allocation and partner as when the rate was last computed: the executor's answer is the same.
    const last = job.rateInputs;
    if (last && last.allocation === job.allocation && last.partner === partnerNow) {
      job.measuredThroughput = job.rate;
      return;
    }
    job.rateInputs = { allocation: job.allocation, partner: partnerNow };
    const shape = shapeOf(job.allocation, hostOf);
    const query = {
      model: job.spec.model,
      batchSize: job.spec.batchSize,
      gpuType: job.allocation.gpuType,
      gpus: shape.gpus,
      shape: { level: shape.level, hosts: shape.hosts },
    };
    const alone =
      job.spec.elastic && job.allocation.ests
        ? elasticExecutorThroughput(truth, job.spec, job.allocation, hostOf, query)
        : truth.jobThroughput
          ? truth.jobThroughput(job.spec.id, job.allocation, query)
          : job.allocation.cell && truth.cellThroughput
            ? truth.cellThroughput(query, job.allocation.cell)
            : truth.throughput(query);
    let factor = 1;
    const partner = job.allocation.packedWith ? active.get(job.allocation.packedWith) : undefined;
    if (partner?.allocation) {
      const co = truth.colocation(job.allocation.gpuType, shape.gpus, job.spec, partner.spec);
      factor = co.normalized[0];
    }
    job.rate = alone.iterationsPerSecond * factor;
    job.commPerIteration = alone.commSeconds;
    job.dollarsPerSecond = 0;
    job.unpricedGpus = 0;
    for (const slice of job.allocation.slices) {
      const price = priceOfHost(slice.hostId);
      if (price === undefined) job.unpricedGpus += slice.gpus.length;
      else job.dollarsPerSecond += price * slice.gpus.length;
    }
    job.measuredThroughput = job.rate;
  };

  /** Move every running job forward to time `t`. */
  const advance = (t: number): void => {
    const dt = t - now;
    if (dt <= 0) return;
    busyGpuSeconds += busyGpus * dt;
    for (const job of active.values()) {
      if (!job.allocation) continue;
      const gpus = allocationGpuCount(job.allocation);
      job.attainedService += gpus * dt;
      job.runningSeconds += dt;
      const productive = t - Math.max(now, job.pausedUntil);
      if (productive > 0 && job.rate > 0) {
        const done = Math.min(job.work - job.progress, job.rate * productive);
        job.progress += done;
        job.commSeconds += done * job.commPerIteration;
      }
      job.cost += job.dollarsPerSecond * dt;
      job.unpricedGpuSeconds += job.unpricedGpus * dt;
    }
    now = t;
  };

  const completionTime = (job: SimJob): number => {
    if (!job.allocation || job.rate <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(now, job.pausedUntil) + (job.work - job.progress) / job.rate;
  };

  const end = (job: SimJob, outcome: JobOutcome, reason?: string): void => {
    job.outcome = outcome;
    job.status = outcome === 'completed' ? 'finished' : 'failed';
    if (outcome === 'completed') job.finishTime = now;
    if (reason) job.failureReason = reason;
    job.allocation = undefined;
    job.rate = 0;
    job.rateInputs = undefined;
    active.delete(job.spec.id);
    ended++;
  };

  // `busyGpuCount` over the held allocations (a packed pair counted once), without a list of them per event.
  const recountBusy = (): void => {
    let busy = 0;
    for (const job of active.values()) {
      const allocation = job.allocation;
      if (!allocation || (allocation.packedWith && allocation.packedWith < job.spec.id)) continue;
      busy += allocationGpuCount(allocation);
    }
    busyGpus = busy;
  };

  // The scheduler's view of a job; a job whose view did not change since the last round (a waiting job) gives the
  // same object again: the round copies every job it is given, so only the values matter, and a long queue (thousands
  // of waiting jobs on an overloaded trace) then costs no new object per job and round.
  const view = (job: SimJob): JobState => {
    // A job running past its declared length looks almost done to the scheduler, never over.
    const progress = Math.min(job.progress, job.spec.iterations * (1 - 1e-6));
    const last = job.view;
    if (
      last &&
      last.status === job.status &&
      last.progress === progress &&
      last.attainedService === job.attainedService &&
      last.runningSeconds === job.runningSeconds &&
      last.waitingSince === job.waitingSince &&
      last.restarts === job.restarts &&
      last.migrations === job.migrations &&
      last.runningSince === job.runningSince &&
      last.allocation === job.allocation &&
      last.measuredThroughput === job.measuredThroughput
    )
      return last;
    const made: Mutable<JobState> = {
      spec: job.spec,
      status: job.status,
      progress,
      attainedService: job.attainedService,
      runningSeconds: job.runningSeconds,
      waitingSince: job.waitingSince,
      restarts: job.restarts,
      migrations: job.migrations,
    };
    // Optional fields only when set, in this order (as the view always listed them).
    if (job.runningSince !== undefined) made.runningSince = job.runningSince;
    if (job.allocation) made.allocation = job.allocation;
    if (job.measuredThroughput !== undefined) made.measuredThroughput = job.measuredThroughput;
    job.view = made;
    return made;
  };

  const apply = (action: Action, reasons: ReadonlyMap<string, string>): void => {
    if (action.kind === 'launchInstances' || action.kind === 'terminateInstance') return;
    const job = active.get(action.jobId);
    if (!job) return;
    switch (action.kind) {
      case 'stop':
        if (action.reason === 'unschedulable')
          end(job, 'unschedulable', reasons.get(job.spec.id) ?? 'no allocation of this job fits the cluster');
        else {
          job.allocation = undefined;
          job.status = 'suspended';
          job.waitingSince = now;
          job.runningSince = undefined;
        }
        return;
      case 'start':
        if (job.progress > 0 || job.firstStart !== undefined) {
          job.restarts++;
          job.pausedUntil = now + config.restartSeconds;
        } else job.pausedUntil = now;
        job.firstStart ??= now;
        job.allocation = action.allocation;
        job.status = 'running';
        job.runningSince = now;
        return;
      case 'migrate':
      case 'rescale':
        if (action.kind === 'migrate') job.migrations++;
        else job.restarts++;
        job.allocation = action.to;
        job.pausedUntil = now + config.restartSeconds;
        return;
      case 'checkpoint':
        return;
    }
  };

  const runRound = (): void => {
    const jobs: JobState[] = [];
    for (const job of active.values()) jobs.push(view(job));
    profiles?.record(jobs, hostOf);
    const out = scheduleRound({
      now,
      cluster: input.cluster,
      jobs,
      state,
      policy: input.policy,
      perf: profiles?.perf() ?? input.perf,
      config: roundConfig,
      memo,
    });
    state = out.state;
    input.onRound?.(now, out);
    const reasons = new Map(out.stats.unschedulable.map((u) => [u.jobId, u.reason]));
    for (const action of out.actions) apply(action, reasons);
    // Packing moves no GPUs, so it makes no action, yet the executor must know who shares GPUs with whom: jobs
    // whose GPUs did not change take the plan's allocation (with or without `packedWith`).
    for (const [jobId, allocation] of out.plan) {
      const job = active.get(jobId);
      if (job?.allocation && job.allocation !== allocation && sameGpus(job.allocation, allocation))
        job.allocation = allocation;
    }
    for (const job of active.values()) {
      // Packed partners' rates depend on each other, and allocations may have changed: refresh all running jobs.
      if (job.allocation) rateOf(job);
      else {
        job.rate = 0;
        job.rateInputs = undefined;
      }
    }
    recountBusy();
    if (input.onRates) {
      const rates: RunningRate[] = [];
      for (const job of active.values()) {
        if (job.allocation) rates.push({ jobId: job.spec.id, rate: job.rate, pausedUntil: job.pausedUntil });
      }
      input.onRates(now, rates);
    }
    let running = 0;
    for (const job of active.values()) if (job.allocation) running++;
    waitingJobs = active.size - running;
    timeline.push({ t: now, busyGpus, runningJobs: running, waitingJobs });
    idleRounds = running === 0 && active.size > 0 && nextArrival >= arrivals.length ? idleRounds + 1 : 0;
  };

  while (ended < arrivals.length) {
    let tCompletion = Number.POSITIVE_INFINITY;
    let elasticRunning = false;
    for (const job of active.values()) {
      tCompletion = Math.min(tCompletion, completionTime(job));
      if (job.spec.elastic && job.allocation) elasticRunning = true;
    }
    const tArrival =
      nextArrival < arrivals.length ? arrivals[nextArrival]!.submitTime : Number.POSITIVE_INFINITY;
    // With nobody waiting, a periodic round cannot change anything that the next arrival or completion (each of which
    // triggers a round) would not: skip ahead. This keeps weeks of long-running jobs fast to replay. Running elastic
    // jobs are the exception: their intra-job schedulers scale out on idle GPUs and judge scale-outs round by round;
    // so are tessera's type trials awaiting their verdict (`typeTrials.judgeAt`): that round judges the job on the type
    // it tries, as a deployment's would. A trial judged slower that has no room to go back asks for none: only an
    // arrival or a completion can make that room.
    const judgeAt = state.typeTrials?.judgeAt;
    const tRound =
      waitingJobs > 0 || elasticRunning
        ? nextRound
        : judgeAt !== undefined
          ? Math.max(nextRound, judgeAt)
          : Number.POSITIVE_INFINITY;
    const t = Math.min(tCompletion, tArrival, tRound);
    if (!Number.isFinite(t) || t > horizon) break;
    advance(t);

    let changed = false;
    // `end` deletes the job it ends from `active`: deleting the entry being visited is safe in a Map's iteration.
    for (const job of active.values()) {
      if (job.allocation && job.work - job.progress <= EPSILON * Math.max(1, job.work)) {
        job.progress = job.work;
        end(job, 'completed');
        changed = true;
      }
    }
    while (nextArrival < arrivals.length && arrivals[nextArrival]!.submitTime <= now) {
      const spec = arrivals[nextArrival++]!;
      const job = newSimJob(
        uniformSpec(spec),
        trueIterations(config.seed, spec.id, spec.iterations, config.lengthNoise),
      );
      all.push(job);
      active.set(spec.id, job);
      changed = true;
    }
    if (changed) recountBusy();
    if (active.size > 0 && (changed || now >= nextRound)) {
      runRound();
      nextRound = now + config.roundSeconds;
    }
    if (idleRounds >= config.stallRounds) {
      for (const job of [...active.values()]) {
        end(job, 'stalled', `waited ${config.stallRounds} rounds with the cluster idle and no arrival left`);
      }
    }
    if (input.onProgress) {
      const fraction = ended / Math.max(1, arrivals.length);
      if (fraction - lastProgressReport >= 0.01 || ended === arrivals.length) {
        lastProgressReport = fraction;
        input.onProgress(fraction, now - startTime);
      }
    }
  }
  for (const job of active.values()) job.outcome = 'unfinished';
  advance(Math.min(now, horizon));

  // The cluster's capacity per type (lost hosts included: the bound is over the cluster as given), once for every
  // job's lower bound, not once per job over every host.
  const perType = capacityByType(input.cluster.hosts);
  // By push, not map: an optimised `map` returns a holey array where the interpreter's is packed, and the code after
  // it, compiled in one policy's run, was thrown away ('wrong map') in the next one's.
  const records: JobRecord[] = [];
  for (const job of all) records.push(record(job, input, truth, now, perType));
  // The last finish (or the start, when no job finished) by a loop: no array (see `records`).
  let lastFinish = Number.NEGATIVE_INFINITY;
  for (const r of records)
    if (r.finishTime !== undefined && r.finishTime > lastFinish) lastFinish = r.finishTime;
  if (lastFinish === Number.NEGATIVE_INFINITY) lastFinish = startTime;
  return {
    policy: policyName,
    cluster: input.cluster.name,
    totalGpus,
    jobs: records,
    timeline,
    makespan: lastFinish - startTime,
    busyGpuSeconds,
    rounds: state.round,
    startTime,
    endTime: now,
  };
};

/**
 * On-demand price of one GPU of a host per second: its instance type's price when known, else the cheapest EC2
 * offering of its GPU type per GPU; undefined for GPU types not sold on EC2 (the papers' A40, P100, …).
 */
const hostPricePerGpuSecond = (host: Host | undefined): number | undefined => {
  if (!host) return undefined;
  if (host.instanceType) {
    try {
      const offering = getInstanceOffering(host.instanceType);
      return offering.onDemandPerHour / offering.gpus / 3600;
    } catch {
      // Unknown instance type: fall back to the GPU type's cheapest offering.
    }
  }
  const offerings = findGpuType(host.gpuType) ? instanceOfferingsFor(host.gpuType) : [];
  if (offerings.length === 0) return undefined;
  return Math.min(...offerings.map((o) => o.onDemandPerHour / o.gpus)) / 3600;
};

const record = (
  job: SimJob,
  input: SimInput,
  truth: ExecutorModel,
  endTime: number,
  perType: ReadonlyMap<string, TypeCapacity>,
): JobRecord => {
  const finish = job.finishTime;
  const until = finish ?? endTime;
  return {
    id: job.spec.id,
    model: job.spec.model,
    gpus: job.spec.gpus,
    submitTime: job.spec.submitTime,
    ...(job.firstStart !== undefined ? { firstStart: job.firstStart } : {}),
    ...(finish !== undefined ? { finishTime: finish, jct: finish - job.spec.submitTime } : {}),
    outcome: job.outcome ?? 'unfinished',
    ...(job.failureReason ? { reason: job.failureReason } : {}),
    queueing: Math.max(0, until - job.spec.submitTime - job.runningSeconds),
    runningSeconds: job.runningSeconds,
    gpuSeconds: job.attainedService,
    commSeconds: job.commSeconds,
    cost: job.cost,
    unpricedGpuSeconds: job.unpricedGpuSeconds,
    restarts: job.restarts,
    migrations: job.migrations,
    jctLowerBound: jctLowerBound({ ...job.spec, iterations: job.work }, input.cluster, truth, perType),
  };
};

/**
 * The fastest the job could finish alone from its arrival: its iterations over the best executor throughput among
 * the allocations any policy may give it (allowed types; half, requested or double GPU count, or any power of two up
 * to double; elastic up to 2·maxP; every consolidation level the cluster offers; for an elastic job also its best EST
 * mapping, `bestElasticRate`).
 */
export const jctLowerBound = (
  spec: JobSpec,
  cluster: Cluster,
  truth: ExecutorModel,
  perType: ReadonlyMap<string, TypeCapacity> = capacityByType(cluster.hosts),
): number => {
  const allowed = spec.gpuTypes && spec.gpuTypes.length > 0 ? new Set(spec.gpuTypes) : undefined;
  // Crius's half, requested and double; ElasticFlow's power-of-two shares up to double (a communication-bound job
  // spread over hosts can run faster on the GPUs of one host).
  const counts = new Set([Math.max(1, Math.floor(spec.gpus / 2)), spec.gpus, spec.gpus * 2]);
  for (let g = 1; g <= 2 * spec.gpus; g *= 2) counts.add(g);
  if (spec.elastic) for (let g = 1; g <= 2 * spec.elastic.maxP; g++) counts.add(g);
  let best = 0;
  for (const [type, capacity] of perType) {
    if (allowed && !allowed.has(type)) continue;
    for (const gpus of counts) {
      if (gpus > capacity.gpus) continue;
      const minHosts = Math.ceil(gpus / capacity.largestHost);
      const shapes =
        minHosts === 1
          ? ([
              ['machine', 1],
              ['rack', Math.min(gpus, 2)],
              ['network', Math.min(gpus, 2)],
            ] as const)
          : ([
              ['rack', minHosts],
              ['network', minHosts],
            ] as const);
      for (const [level, hosts] of shapes) {
        const rate = truth.throughput({
          model: spec.model,
          batchSize: spec.batchSize,
          gpuType: type,
          gpus,
          shape: { level, hosts },
        }).iterationsPerSecond;
        best = Math.max(best, rate);
      }
    }
  }
  // An elastic job may run its ESTs on GPUs of several types at once.
  if (spec.elastic) best = Math.max(best, bestElasticRate(spec, cluster, truth));
  // Per-job noise can speed a job up by at most `maxJobNoise`: divide it in so the bound holds for every draw.
  return best > 0 ? spec.iterations / (best * (truth.maxJobNoise ?? 1)) : Number.POSITIVE_INFINITY;
};
