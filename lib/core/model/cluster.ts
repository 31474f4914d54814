import type { GpuTypeId } from './gpu.ts';

export type HostState = 'active' | 'draining' | 'lost';
export type Lifecycle = 'on-demand' | 'spot';

/** One machine (an EC2 instance on AWS). All its GPUs are of one type, as on every EC2 GPU family. */
export interface Host {
  readonly id: string;
  readonly gpuType: GpuTypeId;
  readonly gpuCount: number;
  /** Bottom network node (AWS: the first layer of DescribeInstanceTopology). */
  readonly rack: string;
  /** Network spine / placement group. A job never spans networks of different zones. */
  readonly network: string;
  readonly zone: string;
  readonly instanceType?: string;
  readonly lifecycle?: Lifecycle;
  readonly state?: HostState;
}

export interface Cluster {
  readonly name: string;
  readonly hosts: readonly Host[];
}

/** A job's share of one host: which GPU indices of that host it uses. */
export interface HostSlice {
  readonly hostId: string;
  readonly gpus: readonly number[];
}

export const totalGpus = (cluster: Cluster): number => cluster.hosts.reduce((n, h) => n + h.gpuCount, 0);

export const gpusByType = (cluster: Cluster): Map<GpuTypeId, number> => {
  const counts = new Map<GpuTypeId, number>();
  for (const host of cluster.hosts) {
    if (host.state === 'lost') continue;
    counts.set(host.gpuType, (counts.get(host.gpuType) ?? 0) + host.gpuCount);
  }
  return counts;
};
