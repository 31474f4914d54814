import type { Cluster } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';

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
  const racks = new Map<string, number>();
  const machine = new Map<GpuTypeId, number>();
  for (const host of cluster.hosts) {
    if (host.state === 'lost' || host.state === 'draining') continue;
    machine.set(host.gpuType, Math.max(machine.get(host.gpuType) ?? 0, host.gpuCount));
    const key = `${host.gpuType}\u0000${host.zone}\u0000${host.rack}`;
    racks.set(key, (racks.get(key) ?? 0) + host.gpuCount);
  }
  const out = new Map<GpuTypeId, LevelCapacity>();
  for (const [type, largestHost] of machine) out.set(type, { machine: largestHost, rack: 0 });
  for (const [key, gpus] of racks) {
    const type = key.slice(0, key.indexOf('\u0000'));
    const c = out.get(type)!;
    out.set(type, { machine: c.machine, rack: Math.max(c.rack, gpus) });
  }
  return out;
};
