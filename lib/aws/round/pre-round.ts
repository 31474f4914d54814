/**
 * Before the core decides anything (pure): hosts that stopped sending heartbeats are declared lost, jobs whose
 * GPUs sit on a host that is lost, draining or unknown are requeued from their newest checkpoint, and jobs whose
 * cancellation was requested are cancelled. A host declared lost gets an empty desired state with `stop`, so an
 * agent that is silent but alive stops its workers instead of running them beside the requeued copy. A job whose
 * host reports (in its heartbeat's actual state) that the current generation finished or failed is ended even if
 * the `finished`/`failed` report itself was lost, so its GPUs are freed. Each of these converges even if the
 * fleet-events function or an earlier round missed it.
 */
import type { DesiredStateDocument } from '../../protocol/desired-state.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import type { HostItem } from '../items/host-item.ts';
import type { JobItem } from '../items/job-item.ts';
import { RETENTION } from '../tables.ts';
import { type JobChange, type RoundClock, requeue, terminate } from './job-transitions.ts';

export interface HostChange {
  readonly hostId: string;
  readonly changes: ItemChanges;
  readonly expectedGeneration: number;
  readonly next: HostItem;
  readonly why: string;
  /** A desired state to write with the change (and to the host's copy): the stop order of a lost host. */
  readonly desired?: DesiredStateDocument;
}

/** What a host the control plane gave up must do: run nothing, stop everything. */
export const stopOrder = (host: HostItem): DesiredStateDocument => ({
  hostId: host.hostId,
  generation: Math.max(host.desiredGeneration, host.desired?.generation ?? 0) + 1,
  jobs: [],
  stop: true,
});

export interface PreRoundResult {
  readonly hostChanges: HostChange[];
  readonly jobChanges: JobChange[];
  /** Hosts as they are after the host changes. */
  readonly hosts: HostItem[];
  /** Jobs to hand to the core (cancelled ones left out), as they are after the job changes. */
  readonly jobs: JobItem[];
}

/** A host declared lost at `now` (epoch seconds). */
export const lostHostChanges = (reason: string, now: number): ItemChanges => ({
  set: {
    state: 'lost',
    stateReason: reason,
    stateChangedAt: now,
    expiresAt: Math.floor(now) + RETENTION.lostHostSeconds,
  },
  remove: ['idleSince'],
});

export const preRound = (
  hosts: readonly HostItem[],
  jobs: readonly JobItem[],
  clock: RoundClock,
  heartbeatTimeoutSeconds: number,
): PreRoundResult => {
  const hostChanges: HostChange[] = [];
  const hostsAfter = hosts.map((host) => {
    if (host.state !== 'active' && host.state !== 'draining') return host;
    const lastSeen = host.lastHeartbeatAt ?? host.registeredAt;
    if (lastSeen === undefined || clock.now - lastSeen <= heartbeatTimeoutSeconds) return host;
    const why = `no heartbeat for ${Math.round(clock.now - lastSeen)} s`;
    const changes = lostHostChanges(why, clock.now);
    const desired = stopOrder(host);
    const next = {
      ...host,
      state: 'lost' as const,
      stateReason: why,
      stateChangedAt: clock.now,
      desired,
      desiredGeneration: desired.generation,
    };
    delete next.idleSince;
    hostChanges.push({
      hostId: host.hostId,
      changes,
      expectedGeneration: host.desiredGeneration,
      next,
      why,
      desired,
    });
    return next;
  });

  const usable = new Set(hostsAfter.filter((h) => h.state === 'active').map((h) => h.hostId));
  const hostById = new Map(hostsAfter.map((h) => [h.hostId, h]));
  const stateOf = new Map(hostsAfter.map((h) => [h.hostId, h.state]));
  const jobChanges: JobChange[] = [];
  const jobsAfter: JobItem[] = [];
  for (const job of jobs) {
    if (job.cancelRequested) {
      jobChanges.push(terminate(job, 'cancelled', 'cancel requested', clock));
      continue;
    }
    const ended = endedOnHost(job, hostById, clock);
    if (ended) {
      jobChanges.push(ended);
      continue;
    }
    const lostSlice = job.allocation?.slices.find((slice) => !usable.has(slice.hostId));
    if (lostSlice) {
      const state = stateOf.get(lostSlice.hostId) ?? 'unknown';
      // A draining host is alive and checkpointing on request; any other unusable host is not trusted.
      const lost = job
        .allocation!.slices.map((s) => s.hostId)
        .filter((h) => !usable.has(h) && stateOf.get(h) !== 'draining');
      const c = requeue(job, `host ${lostSlice.hostId} is ${state}`, clock, new Set(lost));
      jobChanges.push(c);
      jobsAfter.push(c.next);
      continue;
    }
    jobsAfter.push(job);
  }
  return { hostChanges, jobChanges, hosts: hostsAfter, jobs: jobsAfter };
};

/**
 * The end of a job's current generation as one of its hosts reports it in its actual state (heartbeat), for a
 * job still holding GPUs: the agent keeps a settled job in its heartbeat until the desired state drops it, so a
 * lost `finished`/`failed` message is repaired by the next round.
 */
const endedOnHost = (
  job: JobItem,
  hosts: ReadonlyMap<string, HostItem>,
  clock: RoundClock,
): JobChange | undefined => {
  if (!job.allocation || (job.status !== 'running' && job.status !== 'checkpointing')) return undefined;
  for (const slice of job.allocation.slices) {
    const host = hosts.get(slice.hostId);
    const actual = host?.actual?.jobs.find(
      (j) => j.jobId === job.jobId && j.jobGeneration === job.jobGeneration,
    );
    if (actual?.phase === 'finished') {
      const c = terminate(job, 'finished', `host ${slice.hostId} reports it finished`, clock);
      const progress = Math.max(
        job.progress,
        Math.min(job.spec.iterations, actual.step ?? job.spec.iterations),
      );
      return {
        ...c,
        changes: { ...c.changes, set: { ...c.changes.set, progress } },
        next: { ...c.next, progress },
      };
    }
    if (actual?.phase === 'failed')
      return terminate(
        job,
        'failed',
        `host ${slice.hostId} reports it failed`,
        clock,
        `failed on host ${slice.hostId} (${actual.crashes} crashes; from the host's actual state)`,
      );
  }
  return undefined;
};
