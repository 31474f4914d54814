/**
 * Before the core decides anything (pure): hosts that stopped sending heartbeats are declared lost, jobs whose
 * GPUs sit on a host that is lost, draining or unknown are requeued from their newest checkpoint, and jobs whose
 * cancellation was requested are cancelled. Each of these converges even if the fleet-events function or an
 * earlier round missed it.
 */
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
}

export interface PreRoundResult {
  readonly hostChanges: HostChange[];
  readonly jobChanges: JobChange[];
  /** Hosts as they are after the host changes. */
  readonly hosts: HostItem[];
  /** Jobs to hand to the core (cancelled ones left out), as they are after the job changes. */
  readonly jobs: JobItem[];
}

export const lostHostChanges = (reason: string, nowMs: number): ItemChanges => ({
  set: {
    state: 'lost',
    stateReason: reason,
    stateChangedAt: nowMs,
    expiresAt: Math.floor(nowMs / 1000) + RETENTION.lostHostSeconds,
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
    if (lastSeen === undefined || clock.nowMs - lastSeen <= heartbeatTimeoutSeconds * 1000) return host;
    const why = `no heartbeat for ${Math.round((clock.nowMs - lastSeen) / 1000)} s`;
    const changes = lostHostChanges(why, clock.nowMs);
    const next = { ...host, state: 'lost' as const, stateReason: why, stateChangedAt: clock.nowMs };
    delete next.idleSince;
    hostChanges.push({ hostId: host.hostId, changes, expectedGeneration: host.desiredGeneration, next, why });
    return next;
  });

  const usable = new Set(hostsAfter.filter((h) => h.state === 'active').map((h) => h.hostId));
  const stateOf = new Map(hostsAfter.map((h) => [h.hostId, h.state]));
  const jobChanges: JobChange[] = [];
  const jobsAfter: JobItem[] = [];
  for (const job of jobs) {
    if (job.cancelRequested) {
      jobChanges.push(terminate(job, 'cancelled', 'cancel requested', clock));
      continue;
    }
    const lostSlice = job.allocation?.slices.find((slice) => !usable.has(slice.hostId));
    if (lostSlice) {
      const state = stateOf.get(lostSlice.hostId) ?? 'unknown';
      const c = requeue(job, `host ${lostSlice.hostId} is ${state}`, clock);
      jobChanges.push(c);
      jobsAfter.push(c.next);
      continue;
    }
    jobsAfter.push(job);
  }
  return { hostChanges, jobChanges, hosts: hostsAfter, jobs: jobsAfter };
};
