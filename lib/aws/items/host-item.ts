/**
 * One item of the Hosts table (key `hostId`, the EC2 instance id): what the host is, where it sits in the
 * network, the desired state the host agent reads (attribute `desired`, with `desiredGeneration`), and what the
 * agent last reported. Times are epoch seconds, read through `epochSeconds` (legacy milliseconds converted).
 */
import { z } from 'zod';
import type { Host } from '../../core/model/cluster.ts';
import { desiredStateSchema } from '../../protocol/desired-state.ts';
import { epochSeconds } from './epoch-seconds.ts';

export const HOST_STATES = [
  /** Launched, the agent has not registered yet. */
  'pending',
  /** Registered and schedulable. */
  'active',
  /** Being evacuated (Spot warning, scale-in): its jobs are checkpointed and requeued; nothing new lands on it. */
  'draining',
  /** Gone (terminated, stopped, silent for too long): its jobs were requeued. */
  'lost',
  /** Registered, but its GPUs are not in the catalog: never scheduled. */
  'unsupported',
] as const;
export type HostItemState = (typeof HOST_STATES)[number];

export const hostItemSchema = z.object({
  hostId: z.string().min(1),
  state: z.enum(HOST_STATES),
  stateReason: z.string().optional(),
  stateChangedAt: epochSeconds(),
  instanceType: z.string().optional(),
  gpuType: z.string().optional(),
  gpuCount: z.int().nonnegative(),
  lifecycle: z.enum(['on-demand', 'spot']).optional(),
  zone: z.string().optional(),
  /** Bottom and top DescribeInstanceTopology nodes (see docs/host-agent.md), and the full list. */
  rack: z.string().optional(),
  network: z.string().optional(),
  topologyNodes: z.array(z.string()).optional(),
  /** Private address other hosts reach this one at (rank 0's rendezvous). */
  address: z.string().optional(),
  /** On-demand list price per hour: the budget check counts it. */
  pricePerHour: z.number().nonnegative().optional(),
  launchedAt: epochSeconds().optional(),
  registeredAt: epochSeconds().optional(),
  lastHeartbeatAt: epochSeconds().optional(),
  /** Since when the desired state has no workers (scale-in cool-down); absent while busy. */
  idleSince: epochSeconds().optional(),
  desired: desiredStateSchema.optional(),
  desiredGeneration: z.int().nonnegative(),
  /** The job-data credentials last vended to the host (they sit on its desired-state copy): scope and expiry (s). */
  /** The job-data credentials last vended: their scope's fingerprint, expiry, and the jobs they cover. */
  dataAccess: z
    .object({ scope: z.string(), expiresAt: z.number(), jobIds: z.array(z.string()).optional() })
    .optional(),
  appliedGeneration: z.int().nullable().optional(),
  /** What the agent last reported running (from its heartbeat). */
  actual: z
    .object({
      draining: z.boolean(),
      evacuating: z.enum(['spot', 'shutdown']).nullable(),
      jobs: z.array(
        z.object({
          jobId: z.string(),
          jobGeneration: z.int(),
          phase: z.string(),
          step: z.int().nullable(),
          checkpointStep: z.int().nullable(),
          crashes: z.int(),
        }),
      ),
      gpuUtilization: z.number().nullable(),
    })
    .optional(),
  agentVersion: z.string().optional(),
  gpus: z
    .array(
      z.object({
        index: z.int().nonnegative(),
        uuid: z.string(),
        name: z.string(),
        memoryTotalMiB: z.number().nullable(),
      }),
    )
    .optional(),
  lastRejection: z
    .object({ generation: z.int().nullable(), issues: z.array(z.string()), at: z.number() })
    .optional(),
});

export type HostItem = z.infer<typeof hostItemSchema>;

/** Hosts the scheduler may place on or must account for (draining hosts still hold jobs until evacuated). */
export const isSchedulableState = (state: HostItemState): boolean =>
  state === 'active' || state === 'draining';

/**
 * The core's view of a host. Without topology (instance types DescribeInstanceTopology does not cover, or
 * hosts outside EC2) each host is its own rack and its zone is the network.
 */
export const toHost = (item: HostItem): Host | undefined => {
  if (!isSchedulableState(item.state) || !item.gpuType || item.gpuCount <= 0) return undefined;
  const zone = item.zone ?? 'unknown-zone';
  return {
    id: item.hostId,
    gpuType: item.gpuType,
    gpuCount: item.gpuCount,
    rack: item.rack ?? `${zone}/${item.hostId}`,
    network: item.network ?? zone,
    zone,
    state: item.state === 'draining' ? 'draining' : 'active',
    ...(item.instanceType ? { instanceType: item.instanceType } : {}),
    ...(item.lifecycle ? { lifecycle: item.lifecycle } : {}),
  };
};
