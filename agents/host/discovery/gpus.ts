/** What the agent knows about one GPU of its host. */
export interface GpuSample {
  index: number;
  uuid: string;
  name: string;
  /** MiB; null when the driver does not say. */
  memoryTotalMiB: number | null;
  /** Percent busy over the driver's last sample period; null when not available (e.g. MIG mode). */
  utilization: number | null;
  memoryUsedMiB: number | null;
}

export interface GpuDiscovery {
  /** Lists the host's GPUs with current utilisation. */
  sample(): Promise<GpuSample[]>;
}
