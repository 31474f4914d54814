/**
 * EC2 events from EventBridge: an instance stopping or terminating makes its host lost; a Spot interruption
 * warning makes it draining (its desired state asks the agent to checkpoint everything). Either way the host's
 * jobs are requeued from their newest checkpoint and an early round is requested. Repeated or late events
 * change nothing: every write is conditional on the state it expects.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { isTerminal } from '../../core/model/job.ts';
import { revokeOnLoss } from '../credentials/revoke-on-loss.ts';
import { applyUpdate } from '../dynamo/single-write.ts';
import type { HostItem } from '../items/host-item.ts';
import type { HostsRepository } from '../repositories/hosts-repository.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';
import { requeue } from '../round/job-transitions.ts';
import { lostHostChanges } from '../round/pre-round.ts';
import type { RoundLogger } from '../round/run-round.ts';
import type { SchedulerEvents } from '../sqs/scheduler-events.ts';

export const STATE_CHANGE = 'EC2 Instance State-change Notification';
export const SPOT_WARNING = 'EC2 Spot Instance Interruption Warning';

export const fleetEventSchema = z.discriminatedUnion('detail-type', [
  z.object({
    'detail-type': z.literal(STATE_CHANGE),
    source: z.literal('aws.ec2'),
    detail: z.object({ 'instance-id': z.string().min(1), state: z.string().min(1) }),
  }),
  z.object({
    'detail-type': z.literal(SPOT_WARNING),
    source: z.literal('aws.ec2'),
    detail: z.object({ 'instance-id': z.string().min(1), 'instance-action': z.string() }),
  }),
]);
export type FleetEvent = z.infer<typeof fleetEventSchema>;

/** States after which the instance runs nothing of ours any more. */
export const GONE_STATES = new Set(['shutting-down', 'terminated', 'stopping', 'stopped']);

export interface FleetEventDependencies {
  readonly dynamodb: Pick<DynamoDBDocumentClient, 'send'>;
  readonly jobs: JobsRepository;
  readonly hosts: HostsRepository;
  readonly schedulerEvents: SchedulerEvents;
  /** Epoch seconds. */
  readonly clock: () => number;
  readonly log: RoundLogger;
}

export interface FleetEventOutcome {
  readonly hostId: string;
  /** What happened to the host: lost, draining, or nothing (unknown host, already handled, a harmless state). */
  readonly result: 'lost' | 'draining' | 'ignored';
  readonly requeued: readonly string[];
}

export const applyFleetEvent = async (
  deps: FleetEventDependencies,
  event: FleetEvent,
): Promise<FleetEventOutcome> => {
  const hostId = event.detail['instance-id'];
  const now = deps.clock();
  const host = await deps.hosts.get(hostId);
  if (!host || host.state === 'lost') return { hostId, result: 'ignored', requeued: [] };

  if (event['detail-type'] === STATE_CHANGE) {
    if (!GONE_STATES.has(event.detail.state)) return { hostId, result: 'ignored', requeued: [] };
    const reason = `instance ${event.detail.state}`;
    const lost = await deps.hosts.update(hostId, lostHostChanges(reason, now), {
      onlyInStates: [host.state],
    });
    if (!lost) return { hostId, result: 'ignored', requeued: [] };
    await revokeOnLoss(deps.hosts, [hostId], (m, d) => deps.log.warn(m, d));
    const requeued = await requeueJobsOf(deps, host, reason, now);
    await deps.schedulerEvents.publish({ kind: 'hostLost', subject: hostId, at: now });
    return { hostId, result: 'lost', requeued };
  }

  if (host.state === 'draining') return { hostId, result: 'ignored', requeued: [] };
  const reason = `Spot interruption warning (${event.detail['instance-action']})`;
  const generation = host.desiredGeneration + 1;
  const drained = await applyUpdate(
    deps.dynamodb,
    deps.hosts.desiredWrite(
      hostId,
      { hostId, generation, drain: true, jobs: host.desired?.jobs ?? [] },
      host.desiredGeneration,
      { set: { state: 'draining', stateReason: reason, stateChangedAt: now } },
    ),
  );
  if (!drained) return { hostId, result: 'ignored', requeued: [] };
  const requeued = await requeueJobsOf(deps, host, reason, now);
  await deps.schedulerEvents.publish({ kind: 'hostDraining', subject: hostId, at: now });
  return { hostId, result: 'draining', requeued };
};

/** Requeues every job holding GPUs on the host (those in its desired state), each only if unchanged since read. */
const requeueJobsOf = async (deps: FleetEventDependencies, host: HostItem, reason: string, now: number) => {
  const jobIds = [...new Set((host.desired?.jobs ?? []).map((j) => j.jobId))];
  const requeued: string[] = [];
  for (const job of await deps.jobs.getMany(jobIds)) {
    if (isTerminal(job.status) || !job.allocation?.slices.some((s) => s.hostId === host.hostId)) continue;
    const change = requeue(job, `host ${host.hostId}: ${reason}`, { now });
    const done = await deps.jobs.updateIf(job.jobId, change.changes, {
      status: [job.status],
      equals: { jobGeneration: job.jobGeneration },
    });
    if (done) requeued.push(job.jobId);
  }
  if (requeued.length > 0)
    deps.log.info('requeued jobs of a host', { hostId: host.hostId, reason, jobs: requeued });
  return requeued;
};
