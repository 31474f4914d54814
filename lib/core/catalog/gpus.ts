import type { GpuType, GpuTypeId } from '../model/gpu.ts';

/** How the GPUs of one host talk to each other. */
export type IntraNodeLink = 'nvswitch' | 'nvlink' | 'pcie';

/** The dtype `peakTflops` refers to: tensor-core fp16/bf16 where present, else fp32. */
export type TrainingDtype = 'bf16' | 'fp16' | 'fp32';

/** A catalog GPU type: the domain `GpuType` plus what the catalog knows about where it comes from. */
export interface GpuTypeEntry extends GpuType {
  /** Other spellings that resolve to this id (matched case-insensitively, ignoring `-`, `_`, spaces). */
  readonly aliases: readonly string[];
  readonly architecture: string;
  readonly dtype: TrainingDtype;
  readonly link: IntraNodeLink;
  /**
   * NIC rate (Gbit/s) of the host this GPU typically trains on across hosts: the largest EC2 instance of
   * the family, or the papers' cluster interconnect for GPUs that are not on EC2. Tier parameters may override it.
   */
  readonly hostNetworkGbps: number;
  /** EC2 instance family, when the GPU is sold on EC2. */
  readonly ec2Family?: string;
}

/*
 * Sources: NVIDIA datasheets (H100 SXM, A100, V100 SXM2, A10, A40, L4, L40S, T4, Tesla K80, Tesla P100 PCIe);
 * EC2 instance-type pages for families and network rates. `memoryGiB` is the capacity the driver reports
 * (nvidia-smi), not the marketing figure, because the memory check must use what a process can get.
 * `intraNodeGBps` is the per-GPU, per-direction rate a ring collective achieves (NVLink/NVSwitch or
 * effective PCIe), `intraNodeLatencyUs` the per-step latency of such a collective.
 */
export const GPU_TYPES: readonly GpuTypeEntry[] = [
  {
    id: 'H100',
    aliases: ['H100-80GB', 'H100-SXM', 'H100 SXM5'],
    description: 'NVIDIA H100 SXM5 80 GB (EC2 p5.48xlarge, NVSwitch)',
    architecture: 'Hopper',
    memoryGiB: 79.6,
    dtype: 'bf16',
    peakTflops: 989,
    link: 'nvswitch',
    intraNodeGBps: 450,
    intraNodeLatencyUs: 3,
    hostNetworkGbps: 3200,
    ec2Family: 'p5',
  },
  {
    id: 'A100-40GB',
    aliases: ['A100', 'A100-40G', 'A100 40GB', 'A100-SXM4-40GB'],
    description: 'NVIDIA A100 SXM4 40 GB (EC2 p4d.24xlarge, NVSwitch); the papers’ A100 (Crius, Tesserae)',
    architecture: 'Ampere',
    memoryGiB: 40,
    dtype: 'bf16',
    peakTflops: 312,
    link: 'nvswitch',
    intraNodeGBps: 300,
    intraNodeLatencyUs: 3,
    hostNetworkGbps: 400,
    ec2Family: 'p4d',
  },
  {
    id: 'A100-80GB',
    aliases: ['A100-80G', 'A100 80GB', 'A100-SXM4-80GB'],
    description: 'NVIDIA A100 SXM4 80 GB (EC2 p4de.24xlarge, NVSwitch)',
    architecture: 'Ampere',
    memoryGiB: 80,
    dtype: 'bf16',
    peakTflops: 312,
    link: 'nvswitch',
    intraNodeGBps: 300,
    intraNodeLatencyUs: 3,
    hostNetworkGbps: 400,
    ec2Family: 'p4de',
  },
  {
    // NVLink 2 hybrid cube-mesh (6 links × 25 GB/s); NCCL rings reach ≈130 GB/s bus bandwidth on it.
    id: 'V100-16GB',
    aliases: ['V100', 'V100-16G', 'V100 16GB', 'Tesla V100', 'V100-SXM2-16GB'],
    description: 'NVIDIA Tesla V100 SXM2 16 GB (EC2 p3.2x/8x/16xlarge, NVLink); Gavel’s and EasyScale’s V100',
    architecture: 'Volta',
    memoryGiB: 15.78,
    dtype: 'fp16',
    peakTflops: 125,
    link: 'nvlink',
    intraNodeGBps: 130,
    intraNodeLatencyUs: 5,
    hostNetworkGbps: 25,
    ec2Family: 'p3',
  },
  {
    id: 'V100-32GB',
    aliases: ['V100-32G', 'V100 32GB', 'V100-SXM2-32GB'],
    description: 'NVIDIA Tesla V100 SXM2 32 GB (EC2 p3dn.24xlarge, NVLink); Crius’s V100',
    architecture: 'Volta',
    memoryGiB: 31.75,
    dtype: 'fp16',
    peakTflops: 125,
    link: 'nvlink',
    intraNodeGBps: 130,
    intraNodeLatencyUs: 5,
    hostNetworkGbps: 100,
    ec2Family: 'p3dn',
  },
  {
    // NVIDIA publishes no A10G datasheet; ≈70 dense fp16 tensor TFLOP/s is the commonly quoted figure (verify).
    id: 'A10G',
    aliases: ['A10G-24GB', 'NVIDIA A10G'],
    description: 'NVIDIA A10G 24 GB (EC2 g5, PCIe Gen4)',
    architecture: 'Ampere',
    memoryGiB: 22.49,
    dtype: 'fp16',
    peakTflops: 70,
    link: 'pcie',
    intraNodeGBps: 20,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 100,
    ec2Family: 'g5',
  },
  {
    id: 'L4',
    aliases: ['L4-24GB', 'NVIDIA L4'],
    description: 'NVIDIA L4 24 GB (EC2 g6, PCIe Gen4)',
    architecture: 'Ada Lovelace',
    memoryGiB: 22.49,
    dtype: 'bf16',
    peakTflops: 121,
    link: 'pcie',
    intraNodeGBps: 20,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 100,
    ec2Family: 'g6',
  },
  {
    id: 'L40S',
    aliases: ['L40S-48GB', 'NVIDIA L40S'],
    description: 'NVIDIA L40S 48 GB (EC2 g6e, PCIe Gen4)',
    architecture: 'Ada Lovelace',
    memoryGiB: 44.99,
    dtype: 'bf16',
    peakTflops: 362,
    link: 'pcie',
    intraNodeGBps: 20,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 400,
    ec2Family: 'g6e',
  },
  {
    // Pollux's testbed: g4dn.12xlarge (4 × T4, 50 Gbit/s), hence that NIC rate.
    id: 'T4',
    aliases: ['T4-16GB', 'Tesla T4'],
    description: 'NVIDIA Tesla T4 16 GB (EC2 g4dn, PCIe Gen3); Pollux’s and EasyScale’s T4',
    architecture: 'Turing',
    memoryGiB: 15,
    dtype: 'fp16',
    peakTflops: 65,
    link: 'pcie',
    intraNodeGBps: 12,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 50,
    ec2Family: 'g4dn',
  },
  {
    // One GK210 die of a K80 board = one CUDA device (EC2 p2 exposes dies). No tensor cores: fp32 boost peak.
    id: 'K80',
    aliases: ['Tesla K80', 'K80-12GB'],
    description: 'NVIDIA Tesla K80, one GK210 die, 12 GB (EC2 p2, previous generation); Gavel’s K80',
    architecture: 'Kepler',
    memoryGiB: 11.17,
    dtype: 'fp32',
    peakTflops: 4.37,
    link: 'pcie',
    intraNodeGBps: 10,
    intraNodeLatencyUs: 15,
    hostNetworkGbps: 25,
    ec2Family: 'p2',
  },
  {
    // Not on EC2; cloud P100s are PCIe boards. No tensor cores: fp32 peak. Host NIC rate assumed (25 Gbit/s).
    id: 'P100',
    aliases: ['Tesla P100', 'P100-16GB'],
    description: 'NVIDIA Tesla P100 PCIe 16 GB; Gavel’s and EasyScale’s P100',
    architecture: 'Pascal',
    memoryGiB: 15.9,
    dtype: 'fp32',
    peakTflops: 9.3,
    link: 'pcie',
    intraNodeGBps: 12,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 25,
  },
  {
    // Crius testbed: 2 × A40 per server, Mellanox ConnectX-5 (100 Gbit/s).
    id: 'A40',
    aliases: ['A40-48GB', 'NVIDIA A40'],
    description: 'NVIDIA A40 48 GB (PCIe Gen4); Crius’s A40',
    architecture: 'Ampere',
    memoryGiB: 44.99,
    dtype: 'fp16',
    peakTflops: 149.7,
    link: 'pcie',
    intraNodeGBps: 20,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 100,
  },
  {
    // Crius testbed: 2 × A10 per server, Mellanox ConnectX-6 (200 Gbit/s).
    id: 'A10',
    aliases: ['A10-24GB', 'NVIDIA A10'],
    description: 'NVIDIA A10 24 GB (PCIe Gen4); Crius’s A10 (not the EC2 A10G)',
    architecture: 'Ampere',
    memoryGiB: 22.49,
    dtype: 'fp16',
    peakTflops: 125,
    link: 'pcie',
    intraNodeGBps: 20,
    intraNodeLatencyUs: 10,
    hostNetworkGbps: 200,
  },
];

/** Lookup key of a GPU name: lower case without spaces, `-` or `_` (`V100-16GB`, `v100_16gb` → `v10016gb`). */
const gpuKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '');

const buildIndex = (): ReadonlyMap<string, GpuTypeEntry> => {
  const index = new Map<string, GpuTypeEntry>();
  for (const entry of GPU_TYPES) {
    for (const name of [entry.id, ...entry.aliases]) {
      const key = gpuKey(name);
      const previous = index.get(key);
      if (previous && previous !== entry) {
        throw new Error(`GPU catalog: name "${name}" of ${entry.id} collides with ${previous.id}`);
      }
      index.set(key, entry);
    }
  }
  return index;
};

const GPU_INDEX = buildIndex();

export const knownGpuTypeIds = (): string[] => GPU_TYPES.map((g) => g.id);

/** The catalog entry for an id or alias (case-insensitive), or undefined. */
export const findGpuType = (idOrAlias: string): GpuTypeEntry | undefined => GPU_INDEX.get(gpuKey(idOrAlias));

/** The catalog entry for an id or alias; throws a RangeError listing the known ids when there is none. */
export const getGpuType = (idOrAlias: string): GpuTypeEntry => {
  const entry = findGpuType(idOrAlias);
  if (!entry) {
    throw new RangeError(`unknown GPU type "${idOrAlias}"; known types: ${knownGpuTypeIds().join(', ')}`);
  }
  return entry;
};

/** Canonical catalog id of a GPU name (`v100` → `V100-16GB`, `a100` → `A100-40GB`); throws for unknown names. */
export const resolveGpuTypeId = (idOrAlias: string): GpuTypeId => getGpuType(idOrAlias).id;
