/**
 * One scheduling round against DynamoDB and EC2 (the imperative shell around `scheduleRound`):
 *
 * 1. take the lease (conditional write with expiry); if another round holds it, do nothing;
 * 2. load the scheduler state, active jobs, live hosts and measured profiles;
 * 3. reconcile hosts with EC2 (adopt unrecorded instances, lose vanished ones, fill in topology);
 * 4. pre-round repairs (silent hosts lost, their jobs requeued, cancellations);
 * 5. `scheduleRound` with the configured policy;
 * 6. write job changes, then host desired states, each batch fenced by the lease and conditional on what was read;
 * 7. launch and terminate instances (idempotency tokens, budget, quotas, cool-down);
 * 8. write the scheduler state, release the lease.
 *
 * Host desired states are derived from the Jobs items, never from the actions alone, and every write is
 * conditional: a round that stops anywhere (crash, timeout, lost lease) leaves state the next round converges from.
 */

import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isTerminal } from '../../core/model/job.ts';
import type { PerfModel } from '../../core/model/perf.ts';
import { levelOf } from '../../core/place/free-gpus.ts';
import { scheduleRound } from '../../core/round.ts';
import type { Policy } from '../../core/stages.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import { type FencedWriteResult, type LabelledWrite, writeFenced } from '../dynamo/fenced-writes.ts';
import { type Ec2Fleet, FleetCapacityError, rackAndNetwork } from '../fleet/ec2-fleet.ts';
import type { FleetConfig } from '../fleet/fleet-config.ts';
import { fleetCannotRun, planFleet } from '../fleet/fleet-plan.ts';
import { type HostItem, toHost } from '../items/host-item.ts';
import { ACTIVE_JOB_STATUSES, type JobItem, toJobState } from '../items/job-item.ts';
import type { HostsRepository } from '../repositories/hosts-repository.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';
import type { ProfilesRepository } from '../repositories/profiles-repository.ts';
import type { SchedulerStateRepository } from '../repositories/scheduler-state-repository.ts';
import { fitDesiredStates } from './desired-size.ts';
import { desiredUpdates, jobsByHost, oversizedJobs } from './desired-states.ts';
import { pendingHostItem, reconcileInventory } from './inventory.ts';
import {
  type JobChange,
  jobChangesFromActions,
  mergeChanges,
  type RoundClock,
  terminate,
  withMasterPorts,
} from './job-transitions.ts';
import { logicalSizeFor } from './logical-size.ts';
import { modelEstimateWrites, type RoundPerf, roundPerf } from './model-estimates.ts';
import { lostHostChanges, preRound } from './pre-round.ts';
import { waitWrites } from './wait-writes.ts';

export interface RoundLogger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export interface RoundDependencies {
  readonly dynamodb: Pick<DynamoDBDocumentClient, 'send'>;
  readonly jobs: JobsRepository;
  readonly hosts: HostsRepository;
  readonly profiles: ProfilesRepository;
  readonly state: SchedulerStateRepository;
  /** Absent when the hosts are not EC2 instances (agents registered by hand, local simulated hosts). */
  readonly fleet?: Ec2Fleet;
  readonly clock: () => number;
  readonly log: RoundLogger;
}

export interface RoundSettings {
  readonly clusterName: string;
  readonly policy: Policy;
  readonly perf: PerfModel;
  readonly roundSeconds: number;
  readonly checkpointRoot: string;
  readonly fleet: FleetConfig;
  /** Who runs this round (the Lambda request id): the lease holder. */
  readonly holder: string;
  /** How long the lease lasts: at least as long as the invocation may run. */
  readonly leaseMs: number;
}

export interface RoundReport {
  readonly outcome: 'completed' | 'skipped';
  readonly round?: number;
  readonly actions: Record<string, number>;
  readonly jobWrites: number;
  /** Waiting jobs whose reason, queue position or estimated start was rewritten. */
  readonly waitWrites: number;
  readonly hostWrites: number;
  readonly conflicts: readonly string[];
  readonly launched: readonly string[];
  readonly terminated: readonly string[];
  /** Writes DynamoDB refused for themselves; each failed alone, the rest of the round went on. */
  readonly writeFailures?: readonly string[];
  readonly adopted: readonly string[];
  readonly capacityErrors: readonly string[];
  readonly unmet: readonly { jobId: string; reason: string }[];
  readonly unschedulable: number;
}

const skipped = (): RoundReport => ({
  outcome: 'skipped',
  actions: {},
  jobWrites: 0,
  waitWrites: 0,
  hostWrites: 0,
  conflicts: [],
  launched: [],
  terminated: [],
  adopted: [],
  capacityErrors: [],
  unmet: [],
  unschedulable: 0,
});

export const runRound = async (deps: RoundDependencies, settings: RoundSettings): Promise<RoundReport> => {
  const startMs = deps.clock();
  const lease = await deps.state.acquireLease(settings.holder, startMs, settings.leaseMs);
  if (!lease) {
    deps.log.info('another round holds the lease; skipping', { holder: settings.holder });
    return skipped();
  }
  try {
    return await leasedRound(deps, settings, (writes) =>
      writes.length === 0
        ? Promise.resolve({ written: [], conflicts: [] })
        : writeFenced(deps.dynamodb, deps.state.fence(lease, deps.clock()), writes),
    );
  } finally {
    await deps.state
      .releaseLease(lease)
      .catch((error: unknown) =>
        deps.log.warn('could not release the round lease; it expires on its own', { error: String(error) }),
      );
  }
};

type Fenced = (writes: readonly LabelledWrite[]) => Promise<FencedWriteResult>;

const leasedRound = async (
  deps: RoundDependencies,
  settings: RoundSettings,
  fenced: Fenced,
): Promise<RoundReport> => {
  const clock: RoundClock = { nowMs: deps.clock() };
  const nowSeconds = clock.nowMs / 1000;
  const [loaded, jobsRead, hostsRead, profilesRead] = await Promise.all([
    deps.state.loadState(),
    deps.jobs.listByStatuses(ACTIVE_JOB_STATUSES),
    deps.hosts.listByStates(['pending', 'active', 'draining']),
    deps.profiles.listAll(),
  ]);
  for (const error of [...jobsRead.corrupt, ...hostsRead.corrupt, ...profilesRead.corrupt])
    deps.log.error('skipping a malformed item', { error: error.message });

  const jobs = await withReferencedJobs(deps, jobsRead.items, hostsRead.items);
  const conflicts: string[] = [];
  const inventory = await reconcileFleet(deps, settings, hostsRead.items, clock, fenced, conflicts);

  // 4-5: repairs, then the core's decisions.
  const pre = preRound(inventory.hosts, jobs, clock, settings.fleet.heartbeatTimeoutSeconds);
  const cluster = {
    name: settings.clusterName,
    hosts: pre.hosts.map(toHost).filter((h) => h !== undefined),
  };
  const jobStates = pre.jobs.map((item) => toJobState(item, nowSeconds));
  const perf = roundPerf(
    settings.perf,
    jobStates.map((j) => j.spec),
    profilesRead.items,
  );
  const output = scheduleRound({
    now: nowSeconds,
    cluster,
    jobs: jobStates,
    state: loaded.state,
    policy: settings.policy,
    perf: perf.perf,
    config: { roundSeconds: settings.roundSeconds },
  });
  const afterPre = new Map(pre.jobs.map((j) => [j.jobId, j]));
  const hostById = new Map(cluster.hosts.map((h) => [h.id, h]));
  const actionChanges = jobChangesFromActions(
    afterPre,
    output.actions,
    clock,
    (item) => fleetCannotRun(item.spec, settings.fleet),
    (allocation) => levelOf(allocation, (id) => hostById.get(id)),
    (item) => logicalSizeFor(item.spec, settings.policy.allocate),
  );
  const loadedById = new Map(jobs.map((j) => [j.jobId, j]));
  const jobChanges = withMasterPorts(mergeChanges([...pre.jobChanges, ...actionChanges]), loadedById, clock);

  // 6a: jobs first — host desired states are derived from them.
  const jobResult = await fenced(jobChanges.map((c) => deps.jobs.roundWrite(c.jobId, c.changes, c.expected)));
  conflicts.push(...jobResult.conflicts);
  const jobsAfter = await jobsAfterWrites(deps, jobs, jobChanges, jobResult);
  const waitWritten = await writeWaitInfo(deps, jobsAfter, output.waiting, nowSeconds);
  await writeModelEstimates(deps, jobsAfter, perf);

  // 6b: host desired states, idle tracking, hosts found lost.
  const holding = jobsAfter.filter((j) => !isTerminal(j.status));
  const addressOf = (hostId: string) => pre.hosts.find((h) => h.hostId === hostId)?.address ?? hostId;
  let workers = jobsByHost(holding, addressOf, settings.checkpointRoot);
  const oversized = oversizedJobs(holding);
  if (oversized.length > 0)
    deps.log.warn('jobs hold more GPUs than their logical size; extra GPUs idle', { oversized });
  // A job whose launch settings cannot be written to a host fails alone, with the reason; the round goes on.
  const evictions = fitDesiredStates(workers);
  if (evictions.length > 0) {
    const byId = new Map(holding.map((j) => [j.jobId, j]));
    const failures = evictions.map((e) => terminate(byId.get(e.jobId)!, 'failed', 'failed', clock, e.reason));
    const failed = await fenced(failures.map((c) => deps.jobs.roundWrite(c.jobId, c.changes, c.expected)));
    conflicts.push(...failed.conflicts);
    deps.log.error('failed jobs that do not fit in a host desired state', { jobs: evictions });
    const gone = new Set(evictions.map((e) => e.jobId));
    workers = jobsByHost(
      holding.filter((j) => !gone.has(j.jobId)),
      addressOf,
      settings.checkpointRoot,
    );
  }
  const hostWrites = hostWritesFor(deps, pre, workers, clock);
  const hostResult = await fenced(hostWrites);
  conflicts.push(...hostResult.conflicts);
  const writeFailures = [...(jobResult.failed ?? []), ...(hostResult.failed ?? [])];
  if (writeFailures.length > 0)
    deps.log.error('writes refused by DynamoDB; skipped alone', { writeFailures });

  // 7: the fleet.
  const fleetResult = await applyFleet(deps, settings, {
    hosts: pre.hosts,
    busyHosts: new Set([...workers.entries()].filter(([, w]) => w.length > 0).map(([h]) => h)),
    waiting: holding
      .filter((j) => j.status === 'queued' || j.status === 'suspended')
      .sort((a, b) => b.spec.priority - a.spec.priority || a.submittedAt - b.submittedAt)
      .map((j) => j.spec),
    round: output.state.round,
    clock,
  });

  // 8: the state, last: a round that did not get here is repeated with the same round number.
  const actions: Record<string, number> = {};
  for (const action of output.actions) actions[action.kind] = (actions[action.kind] ?? 0) + 1;
  const stats = { ...output.stats, unschedulable: output.stats.unschedulable.length, actions };
  const stateResult = await fenced([
    deps.state.stateWrite(output.state, loaded.storedRound, clock.nowMs, stats),
  ]);
  if (stateResult.conflicts.length > 0) {
    deps.log.warn('scheduler state changed during the round; the next round reloads it', {
      round: output.state.round,
    });
  }
  conflicts.push(...stateResult.conflicts);
  const report: RoundReport = {
    outcome: 'completed',
    round: output.state.round,
    actions,
    jobWrites: jobResult.written.length,
    waitWrites: waitWritten,
    hostWrites: hostResult.written.length,
    conflicts,
    launched: fleetResult.launched,
    terminated: fleetResult.terminated,
    adopted: inventory.adopted,
    capacityErrors: fleetResult.capacityErrors,
    unmet: fleetResult.unmet,
    unschedulable: output.stats.unschedulable.length,
    ...(writeFailures.length > 0
      ? { writeFailures: writeFailures.map((f) => `${f.label}: ${f.error}`) }
      : {}),
  };
  deps.log.info('round completed', { ...report });
  return report;
};

/**
 * Step 6a': the waiting jobs' reason, position and estimated start (changes only, bounded per round; wait-writes.ts).
 * Each write holds only while the job still waits, so it never races with a start, a cancel or a finish. Advisory:
 * a failed write is logged and retried by a later round.
 */
const writeWaitInfo = async (
  deps: RoundDependencies,
  items: readonly JobItem[],
  waiting: ReturnType<typeof scheduleRound>['waiting'],
  nowSeconds: number,
): Promise<number> => {
  const writes = waitWrites(items, waiting, nowSeconds);
  let written = 0;
  for (let i = 0; i < writes.length; i += WAIT_WRITE_CONCURRENCY) {
    const batch = writes.slice(i, i + WAIT_WRITE_CONCURRENCY);
    const results = await Promise.allSettled(
      batch.map((w) => deps.jobs.updateIf(w.jobId, w.changes, { status: ['queued', 'suspended'] })),
    );
    for (const r of results) {
      if (r.status === 'fulfilled' && r.value) written++;
      else if (r.status === 'rejected')
        deps.log.warn('could not record why a job waits', { error: String(r.reason) });
    }
  }
  return written;
};

const WAIT_WRITE_CONCURRENCY = 16;

/** Step 6a'': models outside the catalog — estimated or calibrated, and the predicted throughput. Advisory, like 6a'. */
const writeModelEstimates = async (deps: RoundDependencies, items: readonly JobItem[], perf: RoundPerf) => {
  const writes = modelEstimateWrites(items, perf);
  for (let i = 0; i < writes.length; i += WAIT_WRITE_CONCURRENCY) {
    const batch = writes.slice(i, i + WAIT_WRITE_CONCURRENCY);
    const results = await Promise.allSettled(
      batch.map((w) => deps.jobs.updateIf(w.jobId, w.changes, { status: [...ACTIVE_JOB_STATUSES] })),
    );
    for (const r of results)
      if (r.status === 'rejected')
        deps.log.warn('could not record a job model estimate', { error: String(r.reason) });
  }
};

/**
 * Jobs named in a host's desired state but missing from the status index (which is eventually consistent) are
 * read directly, so a stale index never makes a round stop a job that is running.
 */
const withReferencedJobs = async (deps: RoundDependencies, jobs: JobItem[], hosts: readonly HostItem[]) => {
  const known = new Set(jobs.map((j) => j.jobId));
  const referenced = new Set<string>();
  for (const host of hosts)
    for (const j of host.desired?.jobs ?? []) if (!known.has(j.jobId)) referenced.add(j.jobId);
  if (referenced.size === 0) return jobs;
  const fetched = await deps.jobs.getMany([...referenced]);
  return [...jobs, ...fetched.filter((j) => !isTerminal(j.status))];
};

/** The items after the job writes: written changes applied; conflicting jobs re-read as they now are. */
const jobsAfterWrites = async (
  deps: RoundDependencies,
  jobs: readonly JobItem[],
  changes: readonly JobChange[],
  result: FencedWriteResult,
): Promise<JobItem[]> => {
  const written = new Set(result.written);
  const conflicted = new Set(result.conflicts);
  const byJob = new Map(changes.map((c) => [c.jobId, c]));
  const reread =
    conflicted.size > 0
      ? await deps.jobs.getMany(changes.filter((c) => conflicted.has(`job ${c.jobId}`)).map((c) => c.jobId))
      : [];
  const rereadById = new Map(reread.map((j) => [j.jobId, j]));
  return jobs
    .map((job) => {
      const label = `job ${job.jobId}`;
      if (written.has(label)) return byJob.get(job.jobId)!.next;
      if (conflicted.has(label)) return rereadById.get(job.jobId);
      return job;
    })
    .filter((j): j is JobItem => j !== undefined);
};

const hostWritesFor = (
  deps: RoundDependencies,
  pre: ReturnType<typeof preRound>,
  workers: ReturnType<typeof jobsByHost>,
  clock: RoundClock,
): LabelledWrite[] => {
  const writes: LabelledWrite[] = pre.hostChanges.map((c) =>
    c.desired
      ? deps.hosts.desiredWrite(c.hostId, c.desired, c.expectedGeneration, c.changes)
      : deps.hosts.roundWrite(c.hostId, c.changes, c.expectedGeneration),
  );
  const desired = new Map(desiredUpdates(pre.hosts, workers).map((u) => [u.hostId, u]));
  for (const host of pre.hosts) {
    if (host.state !== 'active' && host.state !== 'draining') continue;
    const busy = (workers.get(host.hostId)?.length ?? 0) > 0;
    const idle: ItemChanges =
      !busy && host.idleSince === undefined
        ? { set: { idleSince: clock.nowMs } }
        : busy && host.idleSince !== undefined
          ? { remove: ['idleSince'] }
          : {};
    const update = desired.get(host.hostId);
    if (update)
      writes.push(deps.hosts.desiredWrite(host.hostId, update.desired, update.expectedGeneration, idle));
    else if (idle.set || idle.remove)
      writes.push(deps.hosts.roundWrite(host.hostId, idle, host.desiredGeneration));
  }
  return writes;
};

interface InventoryResult {
  readonly hosts: HostItem[];
  readonly adopted: string[];
}

/** Step 3: adopt unrecorded instances, lose vanished ones, terminate instances of lost hosts, fill in topology. */
const reconcileFleet = async (
  deps: RoundDependencies,
  settings: RoundSettings,
  hosts: readonly HostItem[],
  clock: RoundClock,
  fenced: Fenced,
  conflicts: string[],
): Promise<InventoryResult> => {
  if (!deps.fleet) return { hosts: [...hosts], adopted: [] };
  const instances = await deps.fleet.listClusterInstances(settings.clusterName);
  const decisions = reconcileInventory(instances, hosts, clock.nowMs);
  const adopted: HostItem[] = [];
  const strays: string[] = [];
  for (const item of decisions.adopt) {
    if (await deps.hosts.createIfAbsent(item)) adopted.push(item);
    else strays.push(item.hostId); // its item exists but is not live: the host was declared lost
  }
  if (strays.length > 0) {
    deps.log.warn('terminating instances of hosts already declared lost', { instances: strays });
    await deps.fleet.terminate(strays);
  }
  const vanished = new Set(decisions.vanished.map((h) => h.hostId));
  const lostWrites = decisions.vanished.map((h) =>
    deps.hosts.roundWrite(
      h.hostId,
      lostHostChanges('instance no longer running', clock.nowMs),
      h.desiredGeneration,
    ),
  );
  const lost = await fenced(lostWrites);
  conflicts.push(...lost.conflicts);
  let current = [...hosts.filter((h) => !vanished.has(h.hostId)), ...adopted];

  // Topology for registered hosts that have none yet (the agent could not read it, or it predates the host).
  const needTopology = current.filter(
    (h) =>
      h.state === 'active' &&
      h.rack === undefined &&
      h.topologyNodes === undefined &&
      h.launchedAt !== undefined,
  );
  if (needTopology.length > 0) {
    const topology = await deps.fleet.describeTopology(needTopology.map((h) => h.hostId));
    const updated = new Map<string, HostItem>();
    for (const host of needTopology) {
      const nodes = topology.get(host.hostId) ?? [];
      const levels = rackAndNetwork(nodes);
      const next = await deps.hosts.update(
        host.hostId,
        { set: { topologyNodes: nodes, ...levels } },
        { onlyInStates: ['active'] },
      );
      if (next) updated.set(host.hostId, next);
    }
    current = current.map((h) => updated.get(h.hostId) ?? h);
  }
  return { hosts: current, adopted: adopted.map((h) => h.hostId) };
};

interface FleetResult {
  readonly launched: string[];
  readonly terminated: string[];
  readonly capacityErrors: string[];
  readonly unmet: { jobId: string; reason: string }[];
}

/** Step 7. Launch tokens are derived from the round number, so a repeated round does not launch twice. */
const applyFleet = async (
  deps: RoundDependencies,
  settings: RoundSettings,
  input: {
    hosts: readonly HostItem[];
    busyHosts: ReadonlySet<string>;
    waiting: ReturnType<typeof toJobState>['spec'][];
    round: number;
    clock: RoundClock;
  },
): Promise<FleetResult> => {
  const result: FleetResult = { launched: [], terminated: [], capacityErrors: [], unmet: [] };
  if (!deps.fleet) return result;
  const plan = planFleet({
    now: input.clock.nowMs,
    config: settings.fleet,
    hosts: input.hosts,
    busyHosts: input.busyHosts,
    waiting: input.waiting,
  });
  result.unmet.push(...plan.unmet);
  for (const launch of plan.launches) {
    // Try the subnets in order: a capacity refusal in one zone is often not one in the next.
    const subnets = settings.fleet.subnetIds.length > 0 ? settings.fleet.subnetIds : [undefined];
    for (const [attempt, subnetId] of subnets.entries()) {
      const clientToken = createHash('sha256')
        .update(
          `${settings.clusterName}|${input.round}|${launch.instanceType}|${launch.count}|${launch.lifecycle}|${subnetId ?? ''}`,
        )
        .digest('hex')
        .slice(0, 64);
      try {
        const instances = await deps.fleet.launch({
          clusterName: settings.clusterName,
          launchTemplateId: launch.launchTemplateId,
          instanceType: launch.instanceType,
          gpuType: launch.gpuType,
          count: launch.count,
          lifecycle: launch.lifecycle,
          clientToken,
          ...(subnetId ? { subnetId } : {}),
        });
        for (const instance of instances) {
          await deps.hosts.createIfAbsent(pendingHostItem(instance, input.clock.nowMs, launch.gpuType));
          result.launched.push(instance.instanceId);
        }
        deps.log.info('launched instances', {
          instanceType: launch.instanceType,
          count: launch.count,
          subnetId,
          forJobs: launch.forJobs,
        });
        break;
      } catch (error) {
        if (!(error instanceof FleetCapacityError)) throw error;
        result.capacityErrors.push(
          `${launch.instanceType}${subnetId ? ` in ${subnetId}` : ''}: ${error.code}`,
        );
        deps.log.warn('EC2 refused a launch', {
          instanceType: launch.instanceType,
          subnetId,
          code: error.code,
          message: error.message,
          next: attempt + 1 < subnets.length ? 'trying the next subnet' : 'retrying in a later round',
        });
      }
    }
  }
  if (plan.terminations.length > 0) {
    await deps.fleet.terminate(plan.terminations.map((t) => t.hostId));
    for (const termination of plan.terminations) {
      await deps.hosts.update(
        termination.hostId,
        lostHostChanges(`terminated: ${termination.reason}`, input.clock.nowMs),
        {
          onlyInStates: ['pending', 'active', 'draining'],
        },
      );
      result.terminated.push(termination.hostId);
    }
    deps.log.info('terminated instances', { terminations: plan.terminations });
  }
  return result;
};
