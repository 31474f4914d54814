import type { GpuTypeId } from './gpu.ts';

export type HostState = 'active' | 'draining' | 'lost';
export type Lifecycle = 'on-demand' | 'spot';

/**
 * One machine (an EC2 instance on AWS). All its GPUs are of one type, as on every EC2 GPU family. Its position gives
 * Dally's consolidation levels: MACHINE = this host, RACK = hosts sharing `rack`, NETWORK = hosts sharing `zone` and
 * `network` (docs/dally.md).
 */
export interface Host {
  readonly id: string;
  readonly gpuType: GpuTypeId;
  readonly gpuCount: number;
  /**
   * Bottom network node: on AWS the last (bottom-layer) entry of DescribeInstanceTopology's NetworkNodes, the node the
   * instance connects to; instances sharing it are the closest.
   */
  readonly rack: string;
  /** Network spine / cluster placement group (the top-layer node on AWS). A job never spans zones. */
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
