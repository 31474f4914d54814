/**
 * Reconciles the Hosts table with what EC2 runs for the cluster (pure decisions): instances without a host
 * item are adopted as pending hosts (a round that launched them crashed before recording them), hosts whose
 * instance is gone are lost (a missed state-change event), and instances whose host was already declared lost
 * are terminated.
 */
import { getInstanceOffering } from '../../core/catalog/instances.ts';
import type { FleetInstance } from '../fleet/ec2-fleet.ts';
import type { HostItem } from '../items/host-item.ts';

/** DescribeInstances is eventually consistent: a just-launched instance may not be listed yet. */
export const LISTING_GRACE_MS = 120_000;

export interface InventoryDecisions {
  readonly adopt: HostItem[];
  readonly vanished: HostItem[];
}

export const pendingHostItem = (instance: FleetInstance, nowMs: number, gpuTypeHint?: string): HostItem => {
  let gpuType = instance.gpuType ?? gpuTypeHint;
  let gpuCount = 0;
  let pricePerHour: number | undefined;
  try {
    const offering = getInstanceOffering(instance.instanceType);
    gpuType ??= offering.gpuType;
    gpuCount = offering.gpus;
    pricePerHour = offering.onDemandPerHour;
  } catch {
    // An instance type the catalog lacks: kept as a host with no GPUs known until its agent registers.
  }
  return {
    hostId: instance.instanceId,
    state: 'pending',
    stateChangedAt: nowMs,
    instanceType: instance.instanceType,
    gpuCount,
    lifecycle: instance.lifecycle,
    launchedAt: instance.launchedAt ?? nowMs,
    desiredGeneration: 0,
    ...(gpuType ? { gpuType } : {}),
    ...(pricePerHour !== undefined ? { pricePerHour } : {}),
    ...(instance.zone ? { zone: instance.zone } : {}),
    ...(instance.privateIp ? { address: instance.privateIp } : {}),
  };
};

export const reconcileInventory = (
  instances: readonly FleetInstance[],
  liveHosts: readonly HostItem[],
  nowMs: number,
): InventoryDecisions => {
  const running = new Set(instances.map((i) => i.instanceId));
  const known = new Set(liveHosts.map((h) => h.hostId));
  const adopt = instances.filter((i) => !known.has(i.instanceId)).map((i) => pendingHostItem(i, nowMs));
  const vanished = liveHosts.filter(
    (h) => h.launchedAt !== undefined && !running.has(h.hostId) && nowMs - h.launchedAt > LISTING_GRACE_MS,
  );
  return { adopt, vanished };
};
