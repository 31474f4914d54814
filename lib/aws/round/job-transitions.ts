/**
 * How a round's decisions change Jobs items (pure). Each change carries the status and generation it was
 * decided from: the write applies only if the item still has them, so a job that finished or was cancelled
 * meanwhile is left alone and reconsidered next round.
 */
import type { Action } from '../../core/model/action.ts';
import { type Allocation, allocationGpuCount } from '../../core/model/plan.ts';
import type { Level } from '../../core/model/topology.ts';
import { applyChanges } from '../dynamo/apply-changes.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import { formerHoldersOf } from '../items/former-holders.ts';
import type { JobItem } from '../items/job-item.ts';
import { appendTimeline, placementOf, type TimelineEvent } from '../items/job-timeline.ts';
import type { JobExpectation } from '../repositories/jobs-repository.ts';
import { RETENTION } from '../tables.ts';
import { firstLogicalSize, logicalSizeFor } from './logical-size.ts';
import { assignMasterPorts } from './rendezvous-ports.ts';

export interface JobChange {
  readonly jobId: string;
  readonly changes: ItemChanges;
  readonly expected: JobExpectation;
  /** The item as it will be once the write applies. */
  readonly next: JobItem;
  /** Why, for logs: the action kind or the pre-round reason. */
  readonly why: string;
}

export { assignMasterPorts, MASTER_PORT_BASE, MASTER_PORT_RANGE } from './rendezvous-ports.ts';

/** The time of a round: what the core reads and every item stores. */
export interface RoundClock {
  /** Epoch seconds. */
  readonly now: number;
}

const seconds = (clock: RoundClock) => clock.now;

/** GPU-seconds and seconds held since `accountedAt`, folded into the stored totals. */
const foldedAccounting = (item: JobItem, clock: RoundClock) => {
  const now = seconds(clock);
  const elapsed = item.allocation && item.accountedAt !== undefined ? Math.max(0, now - item.accountedAt) : 0;
  const gpus = item.allocation ? allocationGpuCount(item.allocation) : 0;
  return {
    attainedService: item.attainedService + gpus * elapsed,
    runningSeconds: item.runningSeconds + elapsed,
  };
};

const change = (
  item: JobItem,
  changes: ItemChanges,
  why: string,
  clock: RoundClock,
  event?: Omit<TimelineEvent, 'at'>,
): JobChange => {
  const timeline = event ? { timeline: appendTimeline(item.timeline, { at: seconds(clock), ...event }) } : {};
  const withTime: ItemChanges = { ...changes, set: { ...changes.set, ...timeline, updatedAt: clock.now } };
  return {
    jobId: item.jobId,
    changes: withTime,
    expected: { status: item.status, jobGeneration: item.jobGeneration },
    next: applyChanges(item, withTime),
    why,
  };
};

/**
 * The hosts of the allocation being replaced or released, so their late checkpoint reports still count — except
 * hosts declared lost: a silent host may still be running the old generation, and nothing it reports may count.
 */
const formerHoldersField = (item: JobItem, lostHosts: ReadonlySet<string> = new Set()) => {
  const former = formerHoldersOf(item.allocation, item.jobGeneration);
  const trusted = former && { ...former, hostIds: former.hostIds.filter((h) => !lostHosts.has(h)) };
  return trusted && trusted.hostIds.length > 0 ? { formerHolders: trusted } : {};
};

/**
 * Back to the queue without GPUs (preempted, host lost or draining): resumes from its newest checkpoint.
 * `lostHosts`: hosts of its allocation the control plane no longer trusts (their late reports never count).
 */
export const requeue = (
  item: JobItem,
  why: string,
  clock: RoundClock,
  lostHosts?: ReadonlySet<string>,
): JobChange =>
  change(
    item,
    {
      set: {
        ...foldedAccounting(item, clock),
        status: 'suspended',
        waitingSince: seconds(clock),
        ...formerHoldersField(item, lostHosts),
      },
      remove: ['allocation', 'accountedAt', 'runningSince', 'masterPort', 'placementLevel'],
    },
    why,
    clock,
    {
      kind: 'requeued',
      detail: item.checkpointStep >= 0 ? `${why}; resumes from step ${item.checkpointStep}` : why,
    },
  );

/** Ends a job for good: cancelled, failed or finished. */
export const terminate = (
  item: JobItem,
  status: 'cancelled' | 'failed' | 'finished',
  why: string,
  clock: RoundClock,
  reason?: string,
): JobChange =>
  change(
    item,
    {
      set: {
        ...foldedAccounting(item, clock),
        status,
        ...(status === 'finished' ? { finishTime: seconds(clock) } : {}),
        ...(reason ? { failureReason: reason } : {}),
        expiresAt: Math.floor(clock.now) + RETENTION.terminalJobSeconds,
      },
      remove: [
        'allocation',
        'accountedAt',
        'runningSince',
        'masterPort',
        'placementLevel',
        'cancelRequested',
      ],
    },
    why,
    clock,
    { kind: status, ...(reason ? { detail: reason } : {}) },
  );

const place = (
  item: JobItem,
  allocation: Allocation,
  kind: 'start' | 'migrate' | 'rescale',
  clock: RoundClock,
  levelOf: (allocation: Allocation) => Level,
  logicalSize: (item: JobItem) => number,
): JobChange => {
  const moved = kind !== 'start';
  const ranBefore = item.jobGeneration > 0;
  return change(
    item,
    {
      set: {
        ...(moved ? foldedAccounting(item, clock) : {}),
        ...formerHoldersField(item),
        status: 'running',
        allocation,
        placementLevel: levelOf(allocation),
        accountedAt: seconds(clock),
        ...(moved ? {} : { runningSince: seconds(clock) }),
        jobGeneration: item.jobGeneration + 1,
        // Recorded once, in the same conditional write as the first placement, and never changed afterwards.
        ...(item.logicalWorkers === undefined ? { logicalWorkers: firstLogicalSize(item, logicalSize) } : {}),
        resumeStep: item.checkpointStep,
        ...(kind === 'migrate' ? { migrations: item.migrations + 1 } : {}),
        ...(kind === 'rescale' || (kind === 'start' && ranBefore) ? { restarts: item.restarts + 1 } : {}),
      },
      remove: ['masterPort'],
    },
    kind,
    clock,
    {
      kind: kind === 'start' ? 'started' : kind === 'migrate' ? 'migrated' : 'rescaled',
      ...placementOf(allocation),
      ...(item.checkpointStep >= 0
        ? { detail: `${placementOf(allocation).detail}, from step ${item.checkpointStep}` }
        : {}),
    },
  );
};

/**
 * The job changes a round's actions imply. `cannotRun` says whether the fleet could ever give a job GPUs: a job
 * the core finds unschedulable on today's hosts only waits for the fleet to grow, unless the fleet cannot.
 */
export const jobChangesFromActions = (
  items: ReadonlyMap<string, JobItem>,
  actions: readonly Action[],
  clock: RoundClock,
  cannotRun: (item: JobItem) => string | undefined,
  levelOf: (allocation: Allocation) => Level,
  logicalSize: (item: JobItem) => number = (item) => logicalSizeFor(item.spec),
): JobChange[] => {
  const changes: JobChange[] = [];
  for (const action of actions) {
    if (
      action.kind === 'launchInstances' ||
      action.kind === 'terminateInstance' ||
      action.kind === 'checkpoint'
    )
      continue;
    const item = items.get(action.jobId);
    if (!item) continue;
    switch (action.kind) {
      case 'start':
        changes.push(place(item, action.allocation, 'start', clock, levelOf, logicalSize));
        break;
      case 'migrate':
      case 'rescale':
        changes.push(place(item, action.to, action.kind, clock, levelOf, logicalSize));
        break;
      case 'stop': {
        if (action.reason === 'preempted') changes.push(requeue(item, 'preempted', clock));
        else if (action.reason === 'unschedulable') {
          const reason = cannotRun(item);
          if (reason)
            changes.push(terminate(item, 'failed', 'unschedulable', clock, `unschedulable: ${reason}`));
        } else if (action.reason === 'finished') changes.push(terminate(item, 'finished', 'finished', clock));
        else if (action.reason === 'cancelled')
          changes.push(terminate(item, 'cancelled', 'cancelled', clock));
        else changes.push(terminate(item, 'failed', 'failed', clock, 'stopped by the scheduler'));
        break;
      }
    }
  }
  return changes;
};

/**
 * Adds rendezvous ports to the changes of jobs that hold GPUs after the round and lack one (new placements, or
 * an item that lost its port). Returns every change, including new ones for jobs that needed only a port.
 */
export const withMasterPorts = (
  changes: readonly JobChange[],
  items: ReadonlyMap<string, JobItem>,
  clock: RoundClock,
): JobChange[] => {
  const byJob = new Map(changes.map((c) => [c.jobId, c]));
  const after = [...items.values()].map((item) => byJob.get(item.jobId)?.next ?? item);
  const holding = after.filter(
    (job) => job.allocation && (job.status === 'running' || job.status === 'checkpointing'),
  );
  const ports = assignMasterPorts(holding);
  const result = [...changes];
  for (const [jobId, port] of ports) {
    const index = result.findIndex((c) => c.jobId === jobId);
    const existing = index >= 0 ? result[index] : undefined;
    if (existing) {
      const changesWithPort: ItemChanges = {
        ...existing.changes,
        set: { ...existing.changes.set, masterPort: port },
        remove: (existing.changes.remove ?? []).filter((key) => key !== 'masterPort'),
      };
      result[index] = { ...existing, changes: changesWithPort, next: { ...existing.next, masterPort: port } };
    } else {
      const item = items.get(jobId)!;
      result.push(change(item, { set: { masterPort: port } }, 'rendezvous port', clock));
    }
  }
  return result;
};

/** One change doing `first` then `second` (decided from `first.next`), expecting what `first` expected. */
export const composeChanges = (first: JobChange, second: JobChange): JobChange => {
  const set: Record<string, unknown> = { ...first.changes.set };
  const remove = new Set(first.changes.remove ?? []);
  for (const [key, value] of Object.entries(second.changes.set ?? {})) {
    set[key] = value;
    remove.delete(key);
  }
  for (const key of second.changes.remove ?? []) {
    delete set[key];
    remove.add(key);
  }
  return {
    jobId: first.jobId,
    changes: { set, remove: [...remove] },
    expected: first.expected,
    next: second.next,
    why: `${first.why}, then ${second.why}`,
  };
};

/** Folds a list of changes (in decision order) into at most one per job. */
export const mergeChanges = (changes: readonly JobChange[]): JobChange[] => {
  const byJob = new Map<string, JobChange>();
  for (const c of changes) {
    const previous = byJob.get(c.jobId);
    byJob.set(c.jobId, previous ? composeChanges(previous, c) : c);
  }
  return [...byJob.values()];
};
