import { memoKey } from '../../framework/round-memo.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { Cluster } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';

/**
 * How many GPUs of one type the largest machine and the largest rack hold: the bounds of Algorithm 1's "demand larger
 * than a machine / a rack" rule. Levels are those of the host model: MACHINE = one host (an EC2 instance), RACK = hosts
 * sharing `rack` (the bottom node of DescribeInstanceTopology's NetworkNodes), NETWORK = hosts sharing zone and
 * `network` (one cluster placement group in one Availability Zone).
 */
export interface LevelCapacity {
  readonly machine: number;
  readonly rack: number;
}

/** Level capacities per GPU type over the usable hosts (lost and draining hosts offer nothing). */
export const levelCapacities = (cluster: Cluster): Map<GpuTypeId, LevelCapacity> => {
  // type → zone → rack → GPUs, without building a key string per host (this runs every round).
  const racks = new Map<GpuTypeId, Map<string, Map<string, number>>>();
  const machine = new Map<GpuTypeId, number>();
  for (const host of cluster.hosts) {
    if (host.state === 'lost' || host.state === 'draining') continue;
    machine.set(host.gpuType, Math.max(machine.get(host.gpuType) ?? 0, host.gpuCount));
    let zones = racks.get(host.gpuType);
    if (!zones) {
      zones = new Map();
      racks.set(host.gpuType, zones);
    }
    let inZone = zones.get(host.zone);
    if (!inZone) {
      inZone = new Map();
      zones.set(host.zone, inZone);
    }
    inZone.set(host.rack, (inZone.get(host.rack) ?? 0) + host.gpuCount);
  }
  const out = new Map<GpuTypeId, LevelCapacity>();
  for (const [type, largestHost] of machine) {
    let rack = 0;
    for (const inZone of racks.get(type)!.values())
      for (const gpus of inZone.values()) rack = Math.max(rack, gpus);
    out.set(type, { machine: largestHost, rack });
  }
  return out;
};

const LEVEL_CAPACITIES = memoKey<ReadonlyMap<GpuTypeId, LevelCapacity>>('level capacities');

/** `levelCapacities` of the round's cluster, made once per cluster object (the round memo carries it). */
export const roundLevelCapacities = (ctx: RoundContext): ReadonlyMap<GpuTypeId, LevelCapacity> =>
  ctx.memo.of(ctx.cluster, LEVEL_CAPACITIES, () => levelCapacities(ctx.cluster));
