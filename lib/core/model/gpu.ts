/** A GPU type id from the catalog, e.g. `V100`, `A100-40GB`, `H100`. */
export type GpuTypeId = string;

export interface GpuType {
  readonly id: GpuTypeId;
  /** Device memory in GiB. */
  readonly memoryGiB: number;
  /** Peak dense TFLOP/s for the dtype training normally uses on it (fp16/bf16 tensor cores where present, else fp32). */
  readonly peakTflops: number;
  /** Intra-node GPU↔GPU bandwidth in GB/s per GPU (NVLink/NVSwitch or PCIe) and its latency. */
  readonly intraNodeGBps: number;
  readonly intraNodeLatencyUs: number;
  readonly description: string;
}

/** An EC2 GPU instance family offering. Prices are on-demand us-east-1 at `priceDate`. */
export interface InstanceOffering {
  readonly instanceType: string;
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  /** Network bandwidth of the instance in Gbit/s (EFA/ENA). */
  readonly networkGbps: number;
  readonly onDemandPerHour: number;
  readonly priceDate: string;
}
