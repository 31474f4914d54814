import type { Cluster } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { Level } from '../../model/topology.ts';

/**
 * The best consolidation the cluster offers `gpus` GPUs of a type, as Crius's Cell estimates assume it: one machine
 * when a host of the type holds them, else one rack when a rack's hosts of the type do, else the network. Usable
 * hosts only (lost and draining ones hold no job).
 */
export const bestLevel = (cluster: Cluster, gpuType: GpuTypeId, gpus: number): Level => {
  const perRack = new Map<string, number>();
  let largestHost = 0;
  for (const host of cluster.hosts) {
    if (host.gpuType !== gpuType || host.state === 'lost' || host.state === 'draining') continue;
    largestHost = Math.max(largestHost, host.gpuCount);
    perRack.set(host.rack, (perRack.get(host.rack) ?? 0) + host.gpuCount);
  }
  if (gpus <= largestHost) return 'machine';
  for (const n of perRack.values()) if (gpus <= n) return 'rack';
  return 'network';
};
