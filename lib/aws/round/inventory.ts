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
export const LISTING_GRACE_SECONDS = 120;

export interface InventoryDecisions {
  readonly adopt: HostItem[];
  readonly vanished: HostItem[];
}

/** A host item for an instance the fleet launched or found, at `now` (epoch seconds). */
export const pendingHostItem = (instance: FleetInstance, now: number, gpuTypeHint?: string): HostItem => {
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
    stateChangedAt: now,
    instanceType: instance.instanceType,
    gpuCount,
    lifecycle: instance.lifecycle,
    launchedAt: instance.launchedAt ?? now,
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
  now: number,
): InventoryDecisions => {
  const running = new Set(instances.map((i) => i.instanceId));
  const known = new Set(liveHosts.map((h) => h.hostId));
  const adopt = instances.filter((i) => !known.has(i.instanceId)).map((i) => pendingHostItem(i, now));
  const vanished = liveHosts.filter(
    (h) => h.launchedAt !== undefined && !running.has(h.hostId) && now - h.launchedAt > LISTING_GRACE_SECONDS,
  );
  return { adopt, vanished };
};
