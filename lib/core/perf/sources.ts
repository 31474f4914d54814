import type { GpuTypeId } from '../model/gpu.ts';

/** Catalog GPU type of each Gavel worker type (Gavel measured Tesla K80, P100 and V100 16 GB). */
export const GAVEL_WORKER_TYPES: Readonly<Record<string, GpuTypeId>> = {
  k80: 'K80',
  p100: 'P100',
  v100: 'V100-16GB',
};

/** Pollux measured on AWS g4dn.12xlarge instances: 4 × T4 per node, up to 16 nodes (Qiao et al., OSDI '21). */
export const POLLUX_GPU_TYPE: GpuTypeId = 'T4';

/**
 * Blox's `norm_speed.csv` is Tesserae's co-location profile; Tesserae's testbed is NERSC Perlmutter,
 * 4 × A100 40 GB per node (Tesserae §6.1). The type is an inference from the papers, not a column of the file.
 */
export const BLOX_GPU_TYPE: GpuTypeId = 'A100-40GB';
