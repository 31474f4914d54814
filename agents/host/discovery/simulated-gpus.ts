/** A host with N fake GPUs of one type, for local mode and tests (no driver needed). */
import { createHash } from 'node:crypto';
import type { GpuDiscovery, GpuSample } from './gpus.ts';

/** Product names and memory as nvidia-smi reports them for the types the catalog uses. */
const KNOWN_TYPES: Record<string, { name: string; memoryMiB: number }> = {
  A100: { name: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 },
  'A100-80GB': { name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920 },
  H100: { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 },
  V100: { name: 'Tesla V100-SXM2-16GB', memoryMiB: 16384 },
  T4: { name: 'Tesla T4', memoryMiB: 15360 },
  A10G: { name: 'NVIDIA A10G', memoryMiB: 23028 },
  L4: { name: 'NVIDIA L4', memoryMiB: 23034 },
  K80: { name: 'Tesla K80', memoryMiB: 11441 },
  P100: { name: 'Tesla P100-PCIE-16GB', memoryMiB: 16280 },
};

export interface SimulatedGpuOptions {
  count: number;
  type: string;
  /** Distinguishes the UUIDs of several simulated hosts. */
  hostId?: string;
  /** Utilisation to report per GPU, e.g. busy when a worker runs on it; null (unknown) by default. */
  utilization?: (index: number) => number | null;
}

export class SimulatedGpuDiscovery implements GpuDiscovery {
  constructor(private readonly options: SimulatedGpuOptions) {
    if (!Number.isInteger(options.count) || options.count < 0) {
      throw new Error(`simulated GPUs: count must be a non-negative integer, got ${options.count}`);
    }
  }

  async sample(): Promise<GpuSample[]> {
    const known = KNOWN_TYPES[this.options.type];
    return Array.from({ length: this.options.count }, (_, index) => ({
      index,
      uuid: simulatedUuid(this.options.hostId ?? 'local', index),
      name: known?.name ?? this.options.type,
      memoryTotalMiB: known?.memoryMiB ?? null,
      utilization: this.options.utilization?.(index) ?? null,
      memoryUsedMiB: null,
    }));
  }
}

/** Stable, UUID-shaped and distinct per host and index, like real GPU UUIDs. */
function simulatedUuid(hostId: string, index: number): string {
  const hex = createHash('sha256').update(`${hostId}/${index}`).digest('hex');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
