import type { Host } from '../model/cluster.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import type { TypeCapacity } from './stages.ts';

/** A GPU type's capacity over some hosts, and how many hosts hold it. */
export interface HostsCapacity extends TypeCapacity {
  readonly hosts: number;
}

/** Per GPU type (in the order the hosts first name it): the hosts' GPUs, their count and the largest host. */
export const capacityByType = (hosts: Iterable<Host>): Map<GpuTypeId, HostsCapacity> => {
  const byType = new Map<GpuTypeId, HostsCapacity>();
  for (const h of hosts) {
    const c = byType.get(h.gpuType) ?? { gpus: 0, hosts: 0, largestHost: 0 };
    byType.set(h.gpuType, {
      gpus: c.gpus + h.gpuCount,
      hosts: c.hosts + 1,
      largestHost: Math.max(c.largestHost, h.gpuCount),
    });
  }
  return byType;
};
