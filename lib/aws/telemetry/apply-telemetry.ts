/**
 * Applies agent telemetry to the Jobs, Hosts and Profiles tables. Every write is conditional or monotonic
 * (progress and checkpoint steps only grow, a job ends once, a lost host stays lost), so a message delivered
 * twice, late or out of order changes nothing it should not. Times written are the control plane's clock (epoch
 * seconds): the round compares them with its own.
 */

import { findGpuType } from '../../core/catalog/gpus.ts';
import { getInstanceOffering } from '../../core/catalog/instances.ts';
import { isTerminal, type JobStatus } from '../../core/model/job.ts';
import { allocationGpuCount } from '../../core/model/plan.ts';
import type { TelemetryOf } from '../../protocol/telemetry.ts';
import { rackAndNetwork } from '../fleet/ec2-fleet.ts';
import type { HostItem } from '../items/host-item.ts';
import type { JobItem } from '../items/job-item.ts';
import { profileSignature } from '../items/profile-item.ts';
import type { HostsRepository } from '../repositories/hosts-repository.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';
import type { ProfilesRepository } from '../repositories/profiles-repository.ts';
import { requeue, terminate } from '../round/job-transitions.ts';
import type { RoundLogger } from '../round/run-round.ts';
import type { SchedulerEvents } from '../sqs/scheduler-events.ts';
import { checkpointClaimStanding } from './checkpoint-claim.ts';
import type { EventMessage, HeartbeatUpdate, ProgressUpdate } from './coalesce.ts';
import { RejectedClaimError } from './sender.ts';

export interface TelemetryDependencies {
  readonly jobs: JobsRepository;
  readonly hosts: HostsRepository;
  readonly profiles: ProfilesRepository;
  readonly schedulerEvents: SchedulerEvents;
  /** Epoch seconds. */
  readonly clock: () => number;
  readonly log: RoundLogger;
}

const NOT_ENDED: readonly JobStatus[] = ['queued', 'running', 'checkpointing', 'suspended'];
const LIVE_HOST = ['pending', 'active', 'draining'] as const;
const OPTIMISTIC_ATTEMPTS = 3;

/** Catalog GPU type of a registering host: from its instance type, else from the GPU product name. */
export const gpuTypeOfHost = (
  instanceType: string | null,
  gpuNames: readonly string[],
): string | undefined => {
  if (instanceType) {
    try {
      return getInstanceOffering(instanceType).gpuType;
    } catch {
      // not an EC2 GPU type the catalog knows: try the GPU names
    }
  }
  const name = gpuNames[0];
  if (!name) return undefined;
  const candidates = [
    name,
    name.replace(/^(NVIDIA|Tesla)\s+/i, ''),
    name.replace(/^NVIDIA\s+(Tesla\s+)?/i, ''),
  ];
  for (const candidate of candidates) {
    const type = findGpuType(candidate);
    if (type) return type.id;
  }
  return undefined;
};

/** A host speaks only about jobs placed on it: another host's job is not its to finish, fail or checkpoint. */
const assertHolds = (item: JobItem, hostId: string): void => {
  if (!item.allocation?.slices.some((slice) => slice.hostId === hostId))
    throw new RejectedClaimError(
      `host ${hostId} does not hold job ${item.jobId}; its claim about the job is refused`,
    );
};

export class TelemetryApplier {
  constructor(private readonly deps: TelemetryDependencies) {}

  async applyEvent(message: EventMessage): Promise<void> {
    switch (message.type) {
      case 'register':
        return this.register(message);
      case 'checkpointed':
        return this.raiseCheckpoint(message.hostId, message, message.step);
      case 'stopped':
        if (message.checkpointStep !== null)
          await this.raiseCheckpoint(message.hostId, message, message.checkpointStep);
        if (message.reason === 'gang' || message.reason === 'fenced') await this.requeueGang(message);
        return;
      case 'finished':
      case 'failed':
        return this.endJob(message);
      case 'spotInterruption':
      case 'hostDrained':
        for (const c of message.checkpoints)
          if (c.step !== null) await this.raiseCheckpoint(message.hostId, c, c.step);
        if (message.type === 'spotInterruption')
          await this.drainHost(message.hostId, `Spot ${message.action} notice`);
        return;
      case 'desiredStateRejected':
        this.deps.log.error('host agent rejected its desired state', {
          hostId: message.hostId,
          generation: message.generation,
          issues: message.issues,
        });
        await this.deps.hosts.update(message.hostId, {
          set: {
            lastRejection: { generation: message.generation, issues: message.issues, at: this.deps.clock() },
          },
        });
        return;
      case 'started':
      case 'restarting':
        this.deps.log.info(`agent reports ${message.type}`, { ...message });
        return;
    }
  }

  async applyHeartbeat(update: HeartbeatUpdate): Promise<void> {
    const beat = update.latest;
    const utilizations = beat.gpus.map((g) => g.utilization).filter((u): u is number => u !== null);
    const updated = await this.deps.hosts.update(
      update.hostId,
      {
        set: {
          lastHeartbeatAt: this.deps.clock(),
          appliedGeneration: beat.appliedGeneration,
          actual: {
            draining: beat.draining,
            evacuating: beat.evacuating,
            jobs: beat.jobs.map((j) => ({
              jobId: j.jobId,
              jobGeneration: j.jobGeneration,
              phase: j.phase,
              step: j.step,
              checkpointStep: j.checkpointStep,
              crashes: j.crashes,
            })),
            gpuUtilization:
              utilizations.length > 0 ? utilizations.reduce((a, b) => a + b, 0) / utilizations.length : null,
          },
        },
      },
      { onlyInStates: LIVE_HOST },
    );
    if (!updated)
      this.deps.log.warn('heartbeat from a host that is unknown or lost; ignored', { hostId: update.hostId });
  }

  async applyProgress(update: ProgressUpdate): Promise<void> {
    const latest = update.latest;
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const item = await this.deps.jobs.get(update.jobId);
      if (!item || isTerminal(item.status)) return;
      if (latest.jobGeneration !== item.jobGeneration) return; // a stale placement's report: ignored
      assertHolds(item, update.hostId);
      const ips = latest.stepTime > 0 ? 1 / latest.stepTime : undefined;
      const written = await this.deps.jobs.updateIf(
        item.jobId,
        {
          set: {
            progress: Math.min(item.spec.iterations, Math.max(item.progress, latest.step)),
            lastProgressAt: this.deps.clock(),
            ...(ips !== undefined ? { measuredThroughput: ips } : {}),
          },
        },
        { status: NOT_ENDED, equals: { progress: item.progress, jobGeneration: item.jobGeneration } },
      );
      if (!written) continue; // changed meanwhile: read again
      await this.recordProfile(item, update);
      return;
    }
    throw new Error(`job ${update.jobId}: progress kept conflicting with other writers`);
  }

  /** Throughput samples of the current placement → the Profiles table. */
  private async recordProfile(item: JobItem, update: ProgressUpdate): Promise<void> {
    const allocation = item.allocation;
    if (!allocation || !item.placementLevel) return;
    const rates = update.samples
      .filter((s) => s.jobGeneration === item.jobGeneration && s.stepTime > 0)
      .map((s) => 1 / s.stepTime);
    if (rates.length === 0) return;
    let partner: string | undefined;
    if (allocation.packedWith) {
      const other = await this.deps.jobs.get(allocation.packedWith);
      if (other) partner = profileSignature(other.spec.model, other.spec.batchSize);
    }
    await this.deps.profiles.addSample({
      key: {
        model: item.spec.model,
        batchSize: item.spec.batchSize,
        gpuType: allocation.gpuType,
        gpus: allocationGpuCount(allocation),
        level: item.placementLevel,
        hosts: allocation.slices.length,
        ...(partner ? { partner } : {}),
      },
      iterationsPerSecond: rates.reduce((a, b) => a + b, 0) / rates.length,
      samplesPerSecond: update.latest.samplesPerSecond,
      count: rates.length,
      at: this.deps.clock(),
    });
  }

  private async register(message: TelemetryOf<'register'>): Promise<void> {
    const now = this.deps.clock();
    const gpuType = gpuTypeOfHost(
      message.instanceType,
      message.gpus.map((g) => g.name),
    );
    const levels = message.topology ? rackAndNetwork(message.topology.nodes) : undefined;
    const fields = {
      gpuCount: message.gpus.length,
      gpus: message.gpus,
      agentVersion: message.agentVersion,
      registeredAt: now,
      lastHeartbeatAt: now,
      ...(gpuType ? { gpuType } : {}),
      ...(message.instanceType ? { instanceType: message.instanceType } : {}),
      ...(message.availabilityZone ? { zone: message.availabilityZone } : {}),
      ...(message.address ? { address: message.address } : {}),
      ...(message.topology
        ? {
            rack: levels?.rack ?? message.topology.rack,
            network: levels?.network ?? message.topology.network,
            topologyNodes: message.topology.nodes,
          }
        : {}),
    };
    const unsupported =
      gpuType === undefined
        ? `GPUs not in the catalog: ${message.gpus.map((g) => g.name).join(', ') || 'none'}`
        : undefined;
    for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
      const host = await this.deps.hosts.get(message.hostId);
      if (!host) {
        throw new RejectedClaimError(
          `host ${message.hostId} was neither launched by the fleet nor adopted as an instance tagged for the cluster; registration refused`,
        );
      }
      if (host.state === 'lost') {
        this.deps.log.warn('registration from a host declared lost; ignored', { hostId: message.hostId });
        return;
      }
      const state: HostItem['state'] = unsupported
        ? 'unsupported'
        : host.state === 'draining'
          ? 'draining'
          : 'active';
      const changed = host.state !== state;
      // Only an existing (fleet-recorded) host is updated: registration never creates a host.
      const written = await this.deps.hosts.update(
        message.hostId,
        {
          set: {
            ...fields,
            state,
            ...(changed ? { stateChangedAt: now } : {}),
            ...(unsupported ? { stateReason: unsupported } : {}),
          },
        },
        { onlyInStates: [host.state] },
      );
      if (written) {
        if (unsupported)
          this.deps.log.error('host registered with GPUs the scheduler does not know', {
            hostId: message.hostId,
            reason: unsupported,
          });
        return;
      }
    }
    throw new Error(`host ${message.hostId}: registration kept conflicting with other writers`);
  }

  /** A checkpoint of the job's current placement, reported by a host that holds it; older placements ignored. */
  private async raiseCheckpoint(
    hostId: string,
    ref: { jobId: string; jobGeneration: number },
    step: number,
  ): Promise<void> {
    const item = await this.deps.jobs.get(ref.jobId);
    if (!item || step <= item.checkpointStep) return;
    const standing = checkpointClaimStanding(item, hostId, ref.jobGeneration);
    if (standing === 'refused') assertHolds(item, hostId);
    if (standing !== 'counts') return;
    // Only `below`: a newer complete checkpoint counts whatever generation took it (checkpoint-claim.ts).
    await this.deps.jobs.updateIf(
      ref.jobId,
      { set: { checkpointStep: step, updatedAt: this.deps.clock() } },
      { below: { checkpointStep: step } },
    );
    // A checkpoint at step S proves S steps were done: `tessera job` must not show less until the next progress report.
    const done = Math.min(item.spec.iterations, step);
    await this.deps.jobs.updateIf(
      ref.jobId,
      { set: { progress: done } },
      { status: NOT_ENDED, below: { progress: done } },
    );
  }

  private async drainHost(hostId: string, reason: string): Promise<void> {
    const updated = await this.deps.hosts.update(
      hostId,
      { set: { state: 'draining', stateReason: reason, stateChangedAt: this.deps.clock() } },
      { onlyInStates: ['active', 'pending'] },
    );
    if (updated)
      await this.deps.schedulerEvents.publish({
        kind: 'hostDraining',
        subject: hostId,
        at: this.deps.clock(),
      });
  }

  /**
   * A host fenced itself (it was out of contact with the control plane, protocol/fence.ts) and stopped the job, or
   * a host stopped its part of a gang (a worker there failed, or lost a peer): the gang is broken, so the whole
   * job goes back to the queue at once — every other host's desired state drops it, no rank keeps running alone —
   * and an early round places it again from its newest checkpoint, with a new generation and rendezvous.
   */
  private async requeueGang(message: TelemetryOf<'stopped'>): Promise<void> {
    const item = await this.deps.jobs.get(message.jobId);
    const holding =
      item?.status === 'running' || (message.reason === 'fenced' && item?.status === 'checkpointing');
    if (!item || item.jobGeneration !== message.jobGeneration || !holding) return;
    assertHolds(item, message.hostId);
    const why =
      message.reason === 'fenced'
        ? `host ${message.hostId} lost contact with the control plane and stopped it (fenced)`
        : `gang broken on host ${message.hostId}`;
    const change = requeue(item, why, { now: this.deps.clock() });
    const written = await this.deps.jobs.updateIf(item.jobId, change.changes, {
      status: [item.status],
      equals: { jobGeneration: item.jobGeneration },
    });
    if (written)
      await this.deps.schedulerEvents.publish({
        kind: 'gangBroken',
        subject: `${item.jobId}/g${item.jobGeneration}`, // each broken generation asks for its own round
        at: this.deps.clock(),
      });
  }

  /** `finished` / `failed` for the job's current generation ends it (once); then an early round. */
  private async endJob(message: TelemetryOf<'finished'> | TelemetryOf<'failed'>): Promise<void> {
    const item = await this.deps.jobs.get(message.jobId);
    if (!item || isTerminal(item.status)) return;
    if (item.jobGeneration !== message.jobGeneration) {
      this.deps.log.info('ignoring the end of an older placement', {
        jobId: message.jobId,
        generation: message.jobGeneration,
      });
      return;
    }
    assertHolds(item, message.hostId);
    const clock = { now: this.deps.clock() };
    const change =
      message.type === 'finished'
        ? terminate(item, 'finished', 'finished', clock)
        : terminate(
            item,
            'failed',
            'failed',
            clock,
            `${message.reason} (exit code ${message.exitCode ?? 'none'}, ${message.crashes} crashes, host ${message.hostId})`,
          );
    const set = {
      ...change.changes.set,
      ...(message.type === 'finished'
        ? { progress: Math.max(item.progress, Math.min(item.spec.iterations, message.step)) }
        : {}),
    };
    const ended = await this.deps.jobs.updateIf(
      item.jobId,
      { ...change.changes, set },
      { status: [item.status], equals: { jobGeneration: item.jobGeneration } },
    );
    if (ended)
      await this.deps.schedulerEvents.publish({ kind: 'completion', subject: item.jobId, at: clock.now });
  }
}
