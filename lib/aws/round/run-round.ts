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
import { levelOf } from '../../core/framework/free-gpus.ts';
import { scheduleRound } from '../../core/framework/round.ts';
import type { RoundMemo } from '../../core/framework/round-memo.ts';
import type { Policy } from '../../core/framework/stages.ts';
import { isTerminal } from '../../core/model/job.ts';
import type { PerfModel } from '../../core/model/perf.ts';
import { type FenceTerms, fenceTermsFor } from '../../protocol/fence.ts';
import { revokeOnLoss } from '../credentials/revoke-on-loss.ts';
import {
  type DataAccessSettings,
  type HostDataGrant,
  vendHostCredentials,
} from '../credentials/vend-host-credentials.ts';
import { applyChanges } from '../dynamo/apply-changes.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import { type FencedWriteResult, type LabelledWrite, writeFenced } from '../dynamo/fenced-writes.ts';
import { type Ec2Fleet, FleetCapacityError, rackAndNetwork } from '../fleet/ec2-fleet.ts';
import type { FleetConfig } from '../fleet/fleet-config.ts';
import { fleetCannotRun, planFleet } from '../fleet/fleet-plan.ts';
import { type HostItem, toHost } from '../items/host-item.ts';
import { ACTIVE_JOB_STATUSES, type JobItem, toJobState } from '../items/job-item.ts';
import { isWaiting, type QueuedJob } from '../items/queued-job.ts';
import type { HostsRepository } from '../repositories/hosts-repository.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';
import type { ProfilesRepository } from '../repositories/profiles-repository.ts';
import { QueueSnapshotRepository } from '../repositories/queue-snapshot-repository.ts';
import type { SchedulerStateRepository } from '../repositories/scheduler-state-repository.ts';
import type { TenantSummaryRepository } from '../repositories/tenant-summary-repository.ts';
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
import { leavingJobIds } from './leaving-jobs.ts';
import { logicalSizeFor } from './logical-size.ts';
import { modelEstimateWrites, type RoundPerf, roundPerf } from './model-estimates.ts';
import { phaseTimer } from './phase-timer.ts';
import { lostHostChanges, preRound } from './pre-round.ts';
import { QueuePersister } from './queue-persister.ts';
import { QueueView } from './queue-view.ts';
import { publishTenantSummary } from './tenant-summary.ts';
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
  /** Absent when hosts reach job data with their own credentials (no HostDataRole, or checkpoints on local disk). */
  readonly dataAccess?: DataAccessSettings;
  /** Epoch seconds. */
  readonly clock: () => number;
  readonly log: RoundLogger;
  /**
   * The queue as earlier rounds left it (kept by the round handler across warm invocations); a new one, built from
   * the persisted snapshot or a full read, when absent.
   */
  readonly queue?: QueueView;
  /** Where the per-tenant job summary GET /cluster reads goes (kept by the handler); absent: none is written. */
  readonly tenantSummary?: TenantSummaryRepository;
  /** Writes the queue view's changed segments (kept beside `queue`; it also loads the snapshot a cold view starts from). */
  readonly queuePersister?: QueuePersister;
  /** Derived data the core carries between rounds (kept by the round handler across warm invocations). */
  readonly memo?: RoundMemo;
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
  /** Seconds the lease lasts: at least as long as the invocation may run. */
  readonly leaseSeconds: number;
  /** Seconds a full read of the queue may take in one round before it goes on in the next (default 20). */
  readonly queueReadSeconds?: number;
  /** No launches or terminations this round (the queue is not fully known yet). */
  readonly fleetFrozen?: boolean;
}

const DEFAULT_QUEUE_READ_SECONDS = 20;

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
  /** Seconds per phase of the round (reads, core, job writes, wait info, host writes, fleet, state), and coreCpu. */
  readonly seconds?: Record<string, number>;
  /** How the queue was read: its changes only, a snapshot and its changes, or in full. */
  readonly queueRead?: 'delta' | 'snapshot' | 'full';
  /** False while a first full read of the queue goes on over several rounds (waiting jobs were left alone). */
  readonly queueComplete?: boolean;
  /** Jobs read from the queue (change-index entries on a delta) and waiting jobs known after the round. */
  readonly queueItemsRead?: number;
  /** Bodies of changed waiting jobs read from the table on a delta. */
  readonly queueBodiesRead?: number;
  readonly queued?: number;
  /** The queue snapshot's segments, those this round rewrote, the bytes and write units that took, and whether its
   * header was written (false: the next round tries again). */
  readonly snapshot?: {
    written: boolean;
    segments: number;
    segmentsWritten: number;
    bytes: number;
    writeUnits: number;
  };
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
  const lease = await deps.state.acquireLease(settings.holder, deps.clock(), settings.leaseSeconds);
  if (!lease) {
    deps.log.info('another round holds the lease; skipping', { holder: settings.holder });
    return skipped();
  }
  const persister =
    deps.queuePersister ??
    new QueuePersister(new QueueSnapshotRepository(deps.dynamodb, deps.state.tableName));
  const queue = deps.queue ?? new QueueView({ jobs: deps.jobs, loadSnapshot: () => persister.load() });
  const fenced: Fenced = (writes) =>
    writes.length === 0
      ? Promise.resolve({ written: [], conflicts: [] })
      : writeFenced(deps.dynamodb, deps.state.fence(lease, deps.clock()), writes);
  const use = queue.use();
  try {
    const report = await leasedRound(deps, settings, fenced, queue);
    return await persistQueue(deps, queue, persister, fenced, report, lease.token);
  } catch (error) {
    queue.invalidate(use); // partly applied changes: start the next round from the snapshot or a full read
    throw error;
  } finally {
    await deps.state
      .releaseLease(lease)
      .catch((error: unknown) =>
        deps.log.warn('could not release the round lease; it expires on its own', { error: String(error) }),
      );
  }
};

type Fenced = (writes: readonly LabelledWrite[]) => Promise<FencedWriteResult>;

/**
 * Persists the segments of the queue view that changed, so a cold round handler starts from them. Not in a round
 * that read the queue in full (the longest one): in the next. Best effort: a round whose snapshot fails is still
 * complete (the next persist reads what the table holds first; a cold start meanwhile uses the previous snapshot).
 */
const persistQueue = async (
  deps: RoundDependencies,
  queue: QueueView,
  persister: QueuePersister,
  fenced: Fenced,
  report: RoundReport,
  leaseToken: number,
): Promise<RoundReport> => {
  if (report.outcome !== 'completed' || report.queueRead === 'full' || report.queueComplete === false)
    return report;
  try {
    const result = await persister.persist(queue, fenced, `${leaseToken}-${report.round}`);
    const snapshot = {
      written: result.written,
      segments: result.segments,
      segmentsWritten: result.segmentsWritten,
      bytes: result.bytes,
      writeUnits: result.writeUnits,
    };
    if (!result.written)
      deps.log.warn('queue snapshot not written; the next round tries again', {
        ...snapshot,
        why: result.why,
      });
    else if (result.segmentsWritten > 0 || result.resynced)
      deps.log.info('queue snapshot written', { ...snapshot, resynced: result.resynced });
    return { ...report, snapshot };
  } catch (error) {
    deps.log.warn('could not write the queue snapshot; the next round tries again', { error: String(error) });
    return report;
  }
};

const leasedRound = async (
  deps: RoundDependencies,
  settings: RoundSettings,
  fenced: Fenced,
  queue: QueueView,
): Promise<RoundReport> => {
  const clock: RoundClock = { now: deps.clock() };
  const nowSeconds = clock.now;
  const timer = phaseTimer();
  // Jobs holding GPUs (bounded by the cluster) are read in full every round; the queue only by its changes.
  const [loaded, holdingRead, hostsRead, profilesRead, refreshed] = await Promise.all([
    deps.state.loadState(),
    deps.jobs.listByStatuses(HOLDING_STATUSES),
    deps.hosts.listByStates(['pending', 'active', 'draining']),
    deps.profiles.listAll(),
    queue.refresh(Date.now() + (settings.queueReadSeconds ?? DEFAULT_QUEUE_READ_SECONDS) * 1000),
  ]);
  for (const error of [
    ...holdingRead.corrupt,
    ...hostsRead.corrupt,
    ...profilesRead.corrupt,
    ...refreshed.corrupt,
  ])
    deps.log.error('skipping a malformed item', { error: error.message });
  if (refreshed.snapshotIssue)
    deps.log.info('queue snapshot not used; read the queue in full', { why: refreshed.snapshotIssue });
  // A first full read of a long queue may take more than one round: until it is done, the round keeps the running
  // jobs and hosts right but leaves the queue (and the fleet, sized from it) alone.
  const queueKnown = refreshed.complete;
  if (!queueKnown)
    deps.log.warn('the queue is still being read in full; waiting jobs are left for the next round');
  const waitingJobs = () => (queueKnown ? queue.waiting() : []);

  const holding = await holdingJobs(deps, queue, holdingRead.items, hostsRead.items);
  // Waiting jobs whose cancellation was requested while they held GPUs: cancelled now, from their full items.
  const cancels = await hydrate(
    deps,
    queue,
    waitingJobs().filter((j) => j.cancelRequested),
  );
  const jobs = [...holding, ...cancels.items];
  timer.lap('read');
  const conflicts: string[] = [...cancels.stale];
  const inventory = await reconcileFleet(deps, settings, hostsRead.items, clock, fenced, conflicts);
  timer.lap('inventory');

  // 4-5: repairs, then the core's decisions.
  const pre = preRound(inventory.hosts, jobs, clock, settings.fleet.heartbeatTimeoutSeconds);
  const cluster = {
    name: settings.clusterName,
    hosts: pre.hosts.map(toHost).filter((h) => h !== undefined),
  };
  const decided = new Set([...pre.jobs, ...cancels.items].map((j) => j.jobId));
  const jobStates = [
    ...pre.jobs.filter((j) => queueKnown || !isWaiting(j)).map((item) => toJobState(item, nowSeconds)),
    ...waitingJobs()
      .filter((j) => !decided.has(j.jobId))
      .map((item) => toJobState(item, nowSeconds)),
  ];
  const perf = roundPerf(
    settings.perf,
    jobStates.map((j) => j.spec),
    profilesRead.items,
  );
  const coreCpu = process.cpuUsage();
  const output = scheduleRound({
    now: nowSeconds,
    cluster,
    jobs: jobStates,
    state: loaded.state,
    policy: settings.policy,
    perf: perf.perf,
    config: { roundSeconds: settings.roundSeconds },
    ...(deps.memo ? { memo: deps.memo } : {}),
  });
  timer.lap('core');
  // The core is synchronous: its CPU time is the share of 'core' not lost to other processes on a busy machine.
  timer.seconds.coreCpu = +(process.cpuUsage(coreCpu).user / 1e6).toFixed(3);
  // The queued jobs the core acted on, read in full: a decision taken on a stale view of one is dropped.
  const acted = await hydrate(
    deps,
    queue,
    actedOn(output.actions)
      .filter((id) => !decided.has(id))
      .map((id) => queue.get(id))
      .filter((j) => j !== undefined),
  );
  conflicts.push(...acted.stale);
  const afterPre = new Map([...pre.jobs, ...acted.items].map((j) => [j.jobId, j]));
  const hostById = new Map(cluster.hosts.map((h) => [h.id, h]));
  const actionChanges = jobChangesFromActions(
    afterPre,
    output.actions,
    clock,
    (item) => fleetCannotRun(item.spec, settings.fleet),
    (allocation) => levelOf(allocation, (id) => hostById.get(id)),
    (item) => logicalSizeFor(item.spec, settings.policy.allocate),
  );
  const loaded_ = [...jobs, ...acted.items];
  const loadedById = new Map(loaded_.map((j) => [j.jobId, j]));
  const jobChanges = withMasterPorts(mergeChanges([...pre.jobChanges, ...actionChanges]), loadedById, clock);

  // 6a: jobs first — host desired states are derived from them.
  const jobResult = await fenced(jobChanges.map((c) => deps.jobs.roundWrite(c.jobId, c.changes, c.expected)));
  conflicts.push(...jobResult.conflicts);
  const jobsAfter = await jobsAfterWrites(deps, loaded_, jobChanges, jobResult);
  for (const job of jobsAfter) queue.apply(job);
  timer.lap('jobWrites');
  const waitResult = queueKnown
    ? await writeWaitInfo(deps, queue, fenced, output.waiting, nowSeconds)
    : { written: 0, conflicts: [] };
  conflicts.push(...waitResult.conflicts);
  timer.lap('waitWrites');
  await writeModelEstimates(deps, jobsAfter, perf);

  // 6b: host desired states, idle tracking, hosts found lost.
  const stillHolding = jobsAfter.filter((j) => !isTerminal(j.status));
  const addressOf = (hostId: string) => pre.hosts.find((h) => h.hostId === hostId)?.address ?? hostId;
  let workers = jobsByHost(stillHolding, addressOf, settings.checkpointRoot);
  const oversized = oversizedJobs(stillHolding);
  if (oversized.length > 0)
    deps.log.warn('jobs hold more GPUs than their logical size; extra GPUs idle', { oversized });
  // A job whose launch settings cannot be written to a host fails alone, with the reason; the round goes on.
  const evictions = fitDesiredStates(workers);
  if (evictions.length > 0) {
    const byId = new Map(stillHolding.map((j) => [j.jobId, j]));
    const failures = evictions.map((e) => terminate(byId.get(e.jobId)!, 'failed', 'failed', clock, e.reason));
    const failed = await fenced(failures.map((c) => deps.jobs.roundWrite(c.jobId, c.changes, c.expected)));
    conflicts.push(...failed.conflicts);
    for (const c of failures) if (failed.written.includes(`job ${c.jobId}`)) queue.apply(bumped(c.next));
    deps.log.error('failed jobs that do not fit in a host desired state', { jobs: evictions });
    const gone = new Set(evictions.map((e) => e.jobId));
    workers = jobsByHost(
      stillHolding.filter((j) => !gone.has(j.jobId)),
      addressOf,
      settings.checkpointRoot,
    );
  }
  const leaving = new Map(pre.hosts.map((h) => [h.hostId, leavingJobIds(h, workers.get(h.hostId) ?? [])]));
  const grants = await dataGrants(deps, pre.hosts, workers, leaving, nowSeconds);
  const hostWrites = hostWritesFor(
    deps,
    pre,
    workers,
    clock,
    grants,
    fenceTermsFor(settings.fleet.heartbeatTimeoutSeconds),
    leaving,
  );
  const hostResult = await fenced(hostWrites);
  conflicts.push(...hostResult.conflicts);
  const writeFailures = [...(jobResult.failed ?? []), ...(hostResult.failed ?? [])];
  if (writeFailures.length > 0)
    deps.log.error('writes refused by DynamoDB; skipped alone', { writeFailures });
  timer.lap('hostWrites');

  // 7: the fleet.
  const fleetResult = await applyFleet(deps, queueKnown ? settings : { ...settings, fleetFrozen: true }, {
    hosts: pre.hosts,
    busyHosts: new Set([...workers.entries()].filter(([, w]) => w.length > 0).map(([h]) => h)),
    waiting: waitingJobs()
      .sort((a, b) => b.spec.priority - a.spec.priority || a.submittedAt - b.submittedAt)
      .map((j) => j.spec),
    round: output.state.round,
    clock,
  });
  timer.lap('fleet');

  // 8: the state, last: a round that did not get here is repeated with the same round number.
  const actions: Record<string, number> = {};
  for (const action of output.actions) actions[action.kind] = (actions[action.kind] ?? 0) + 1;
  const stats = { ...output.stats, unschedulable: output.stats.unschedulable.length, actions };
  const stateResult = await fenced([
    deps.state.stateWrite(output.state, loaded.storedRound, clock.now, stats),
  ]);
  if (stateResult.conflicts.length > 0) {
    deps.log.warn('scheduler state changed during the round; the next round reloads it', {
      round: output.state.round,
    });
  }
  conflicts.push(...stateResult.conflicts);
  if (queueKnown) await publishTenantSummary(deps, [...jobsAfter, ...queue.waiting()], nowSeconds);
  timer.lap('state');
  const report: RoundReport = {
    outcome: 'completed',
    round: output.state.round,
    actions,
    jobWrites: jobResult.written.length,
    waitWrites: waitResult.written,
    hostWrites: hostResult.written.length,
    conflicts,
    launched: fleetResult.launched,
    terminated: fleetResult.terminated,
    adopted: inventory.adopted,
    capacityErrors: fleetResult.capacityErrors,
    unmet: fleetResult.unmet,
    unschedulable: output.stats.unschedulable.length,
    seconds: timer.seconds,
    queueRead: refreshed.how,
    queueComplete: queueKnown,
    queueItemsRead: refreshed.read,
    queueBodiesRead: refreshed.fetched,
    queued: queue.size,
    ...(writeFailures.length > 0
      ? { writeFailures: writeFailures.map((f) => `${f.label}: ${f.error}`) }
      : {}),
  };
  deps.log.info('round completed', { ...report });
  return report;
};

/**
 * Step 6a': the waiting jobs' reason, position and estimated start (changes only, bounded per round; wait-writes.ts),
 * in fenced transactions like every other round write. Each holds only while the job keeps the status and generation
 * the queue view has, so it never races with a start, a cancel or a finish; one that conflicts is dropped, and the
 * next round decides again.
 */
const writeWaitInfo = async (
  deps: RoundDependencies,
  queue: QueueView,
  fenced: Fenced,
  waiting: ReturnType<typeof scheduleRound>['waiting'],
  nowSeconds: number,
): Promise<{ written: number; conflicts: string[] }> => {
  const writes = waitWrites(queue.waiting(), waiting, nowSeconds).flatMap((w) => {
    const view = queue.get(w.jobId);
    return view ? [{ view, write: w }] : [];
  });
  const result = await fenced(
    writes.map(({ view, write }) =>
      deps.jobs.roundWrite(write.jobId, write.changes, {
        status: view.status,
        jobGeneration: view.jobGeneration,
      }),
    ),
  );
  const written = new Set(result.written);
  for (const { view, write } of writes)
    if (written.has(`job ${view.jobId}`))
      queue.apply({ ...applyChanges(view, write.changes), rev: (view.rev ?? 0) + 1 });
  return { written: result.written.length, conflicts: result.conflicts };
};

const HOLDING_STATUSES = ['running', 'checkpointing'] as const;

/** Concurrent conditional writes of advisory job attributes (model estimates). */
const MODEL_ESTIMATE_WRITE_CONCURRENCY = 16;

/** Step 6a'': models outside the catalog — estimated or calibrated, and the predicted throughput. Advisory, like 6a'. */
const writeModelEstimates = async (deps: RoundDependencies, items: readonly JobItem[], perf: RoundPerf) => {
  const writes = modelEstimateWrites(items, perf);
  for (let i = 0; i < writes.length; i += MODEL_ESTIMATE_WRITE_CONCURRENCY) {
    const batch = writes.slice(i, i + MODEL_ESTIMATE_WRITE_CONCURRENCY);
    const results = await Promise.allSettled(
      batch.map((w) => deps.jobs.updateIf(w.jobId, w.changes, { status: [...ACTIVE_JOB_STATUSES] })),
    );
    for (const r of results)
      if (r.status === 'rejected')
        deps.log.warn('could not record a job model estimate', { error: String(r.reason) });
  }
};

/**
 * The jobs holding GPUs: the status index's, plus jobs named in a host's desired state but missing from it (the
 * index is eventually consistent), read directly so a stale index never makes a round stop a running job. Each view
 * is offered to the queue view; one older than the queue's (the job was requeued since) is left out.
 */
const holdingJobs = async (
  deps: RoundDependencies,
  queue: QueueView,
  indexed: readonly JobItem[],
  hosts: readonly HostItem[],
): Promise<JobItem[]> => {
  const known = new Set(indexed.map((j) => j.jobId));
  const referenced = new Set<string>();
  for (const host of hosts)
    for (const j of host.desired?.jobs ?? []) if (!known.has(j.jobId)) referenced.add(j.jobId);
  const fetched = referenced.size > 0 ? await deps.jobs.getMany([...referenced]) : [];
  const holding: JobItem[] = [];
  for (const job of [...indexed, ...fetched]) {
    const queued = queue.get(job.jobId);
    if (queued && (queued.rev ?? 0) > (job.rev ?? 0)) continue;
    queue.apply(job); // waiting: the queue takes it; holding or ended: the queue drops it
    if (!isTerminal(job.status) && !isWaiting(job)) holding.push(job);
  }
  return holding;
};

/**
 * Full items of queued jobs the round is about to change, read consistently. A job whose status or generation is
 * no longer what the queue view said is left out (reported as a conflict) and the view takes the fresh item.
 */
const hydrate = async (
  deps: RoundDependencies,
  queue: QueueView,
  views: readonly QueuedJob[],
): Promise<{ items: JobItem[]; stale: string[] }> => {
  if (views.length === 0) return { items: [], stale: [] };
  const fresh = new Map((await deps.jobs.getMany(views.map((v) => v.jobId))).map((j) => [j.jobId, j]));
  const items: JobItem[] = [];
  const stale: string[] = [];
  for (const view of views) {
    const item = fresh.get(view.jobId);
    if (item) queue.apply(item);
    if (item && item.status === view.status && item.jobGeneration === view.jobGeneration) items.push(item);
    else stale.push(`job ${view.jobId} (changed since the queue view)`);
  }
  return { items, stale };
};

/** Jobs the core's actions start, stop or move. */
const actedOn = (actions: ReturnType<typeof scheduleRound>['actions']): string[] => [
  ...new Set(
    actions.flatMap((a) => (a.kind === 'launchInstances' || a.kind === 'terminateInstance' ? [] : [a.jobId])),
  ),
];

/** The item after one more write of its own: what a successful round write leaves. */
const bumped = (item: JobItem): JobItem => ({ ...item, rev: (item.rev ?? 0) + 1 });

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
      if (written.has(label)) return bumped(byJob.get(job.jobId)!.next);
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
  grants: ReadonlyMap<string, HostDataGrant>,
  fence: FenceTerms,
  leaving: ReadonlyMap<string, readonly string[]>,
): LabelledWrite[] => {
  const writes: LabelledWrite[] = pre.hostChanges.map((c) =>
    c.desired
      ? deps.hosts.desiredWrite(c.hostId, c.desired, c.expectedGeneration, c.changes)
      : deps.hosts.roundWrite(c.hostId, c.changes, c.expectedGeneration),
  );
  const desired = new Map(desiredUpdates(pre.hosts, workers, fence).map((u) => [u.hostId, u]));
  for (const host of pre.hosts) {
    if (host.state !== 'active' && host.state !== 'draining') continue;
    const busy = (workers.get(host.hostId)?.length ?? 0) > 0;
    const idle: ItemChanges =
      !busy && host.idleSince === undefined
        ? { set: { idleSince: clock.now } }
        : busy && host.idleSince !== undefined
          ? { remove: ['idleSince'] }
          : {};
    const update = desired.get(host.hostId);
    const grant = grants.get(host.hostId);
    // A host still stopping a job keeps its credentials for it; once it has none left to run or stop, they go.
    const stopping = (leaving.get(host.hostId)?.length ?? 0) > 0;
    const revoke = !busy && !stopping && host.dataAccess !== undefined;
    if (update)
      writes.push(
        deps.hosts.desiredWrite(host.hostId, update.desired, update.expectedGeneration, idle, grant, {
          keepCredentials: stopping,
        }),
      );
    else if (grant) writes.push(deps.hosts.grantWrite(host.hostId, grant, host.desiredGeneration, idle));
    else if (revoke) writes.push(deps.hosts.revokeWrite(host.hostId, host.desiredGeneration, idle));
    else if (idle.set || idle.remove)
      writes.push(deps.hosts.roundWrite(host.hostId, idle, host.desiredGeneration));
  }
  return writes;
};

/**
 * Step 6b': job-data credentials for hosts whose job set changed or whose credentials expire soon (only where the
 * host has a private desired-state copy to receive them). Written with the desired states, in the same transaction.
 */
const dataGrants = async (
  deps: RoundDependencies,
  hosts: readonly HostItem[],
  workers: ReturnType<typeof jobsByHost>,
  leaving: ReadonlyMap<string, readonly string[]>,
  nowSeconds: number,
): Promise<Map<string, HostDataGrant>> => {
  if (!deps.dataAccess) return new Map();
  const needs = hosts
    .filter((h) => (h.state === 'active' || h.state === 'draining') && deps.hosts.desiredCopyKey(h.hostId))
    .map((h) => ({
      hostId: h.hostId,
      ...(h.dataAccess ? { dataAccess: h.dataAccess } : {}),
      jobs: workers.get(h.hostId) ?? [],
      leavingJobIds: leaving.get(h.hostId) ?? [],
    }));
  return vendHostCredentials(needs, deps.dataAccess, nowSeconds, (hostId, error) =>
    deps.log.error('could not vend job-data credentials; the host keeps its current ones', {
      hostId,
      error: String(error),
    }),
  );
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
  const decisions = reconcileInventory(instances, hosts, clock.now);
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
      lostHostChanges('instance no longer running', clock.now),
      h.desiredGeneration,
    ),
  );
  const lost = await fenced(lostWrites);
  conflicts.push(...lost.conflicts);
  await revokeOnLoss(deps.hosts, [...vanished], (m, d) => deps.log.warn(m, d));
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
  if (!deps.fleet || settings.fleetFrozen) return result;
  const plan = planFleet({
    now: input.clock.now,
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
          await deps.hosts.createIfAbsent(pendingHostItem(instance, input.clock.now, launch.gpuType));
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
        lostHostChanges(`terminated: ${termination.reason}`, input.clock.now),
        {
          onlyInStates: ['pending', 'active', 'draining'],
        },
      );
      result.terminated.push(termination.hostId);
    }
    await revokeOnLoss(
      deps.hosts,
      plan.terminations.map((t) => t.hostId),
      (m, d) => deps.log.warn(m, d),
    );
    deps.log.info('terminated instances', { terminations: plan.terminations });
  }
  return result;
};
