import type { GpuTypeId, InstanceOffering } from '../model/gpu.ts';
import { getGpuType } from './gpus.ts';

/**
 * The date the prices below are believed to hold. They are on-demand Linux list prices in us-east-1 as
 * recalled, NOT fetched: verify against the EC2 pricing page before relying on them for budgets. AWS
 * announced cuts of up to 45 % for P4/P5 on-demand prices in June 2025, after this date.
 */
export const PRICE_DATE = '2024-06-01';

export interface InstanceOfferingEntry extends InstanceOffering {
  /** True when `networkGbps` is a burst ("up to") rate rather than a sustained one. */
  readonly networkBurst: boolean;
  /** Previous-generation family that AWS may no longer offer in every region. */
  readonly previousGeneration?: boolean;
}

type Row = readonly [
  instanceType: string,
  gpus: number,
  networkGbps: number,
  burst: boolean,
  perHour: number,
];

const family = (
  gpuType: GpuTypeId,
  rows: readonly Row[],
  previousGeneration = false,
): InstanceOfferingEntry[] =>
  rows.map(([instanceType, gpus, networkGbps, networkBurst, onDemandPerHour]) => ({
    instanceType,
    gpuType,
    gpus,
    networkGbps,
    networkBurst,
    onDemandPerHour,
    priceDate: PRICE_DATE,
    ...(previousGeneration ? { previousGeneration } : {}),
  }));

/** EC2 GPU instance offerings (network rates from the EC2 instance-type pages; prices: see `PRICE_DATE`). */
export const INSTANCE_OFFERINGS: readonly InstanceOfferingEntry[] = [
  ...family('H100', [['p5.48xlarge', 8, 3200, false, 98.32]]),
  ...family('A100-40GB', [['p4d.24xlarge', 8, 400, false, 32.7726]]),
  ...family('A100-80GB', [['p4de.24xlarge', 8, 400, false, 40.9657]]),
  ...family('V100-16GB', [
    ['p3.2xlarge', 1, 10, true, 3.06],
    ['p3.8xlarge', 4, 10, false, 12.24],
    ['p3.16xlarge', 8, 25, false, 24.48],
  ]),
  ...family('V100-32GB', [['p3dn.24xlarge', 8, 100, false, 31.212]]),
  ...family('A10G', [
    ['g5.xlarge', 1, 10, true, 1.006],
    ['g5.2xlarge', 1, 10, true, 1.212],
    ['g5.4xlarge', 1, 25, true, 1.624],
    ['g5.8xlarge', 1, 25, false, 2.448],
    ['g5.16xlarge', 1, 25, false, 4.096],
    ['g5.12xlarge', 4, 40, false, 5.672],
    ['g5.24xlarge', 4, 50, false, 8.144],
    ['g5.48xlarge', 8, 100, false, 16.288],
  ]),
  ...family('L4', [
    ['g6.xlarge', 1, 10, true, 0.8048],
    ['g6.2xlarge', 1, 10, true, 0.9776],
    ['g6.4xlarge', 1, 25, true, 1.3232],
    ['g6.8xlarge', 1, 25, false, 2.0144],
    ['g6.16xlarge', 1, 25, false, 3.3968],
    ['g6.12xlarge', 4, 40, false, 4.6016],
    ['g6.24xlarge', 4, 50, false, 6.6752],
    ['g6.48xlarge', 8, 100, false, 13.3504],
  ]),
  ...family('L40S', [
    ['g6e.xlarge', 1, 20, true, 1.861],
    ['g6e.2xlarge', 1, 20, true, 2.24208],
    ['g6e.4xlarge', 1, 20, false, 3.00424],
    ['g6e.8xlarge', 1, 25, false, 4.52856],
    ['g6e.16xlarge', 1, 35, false, 7.57719],
    ['g6e.12xlarge', 4, 100, false, 10.49264],
    ['g6e.24xlarge', 4, 200, false, 15.06559],
    ['g6e.48xlarge', 8, 400, false, 30.13118],
  ]),
  ...family('T4', [
    ['g4dn.xlarge', 1, 25, true, 0.526],
    ['g4dn.2xlarge', 1, 25, true, 0.752],
    ['g4dn.4xlarge', 1, 25, true, 1.204],
    ['g4dn.8xlarge', 1, 50, false, 2.176],
    ['g4dn.16xlarge', 1, 50, false, 4.352],
    ['g4dn.12xlarge', 4, 50, false, 3.912],
    ['g4dn.metal', 8, 100, false, 7.824],
  ]),
  ...family(
    'K80',
    [
      ['p2.xlarge', 1, 1.25, true, 0.9],
      ['p2.8xlarge', 8, 10, false, 7.2],
      ['p2.16xlarge', 16, 25, false, 14.4],
    ],
    true,
  ),
];

const OFFERING_INDEX = new Map(INSTANCE_OFFERINGS.map((o) => [o.instanceType.toLowerCase(), o]));

/** The offering of an EC2 instance type (case-insensitive); throws a RangeError listing known types otherwise. */
export const getInstanceOffering = (instanceType: string): InstanceOfferingEntry => {
  const offering = OFFERING_INDEX.get(instanceType.trim().toLowerCase());
  if (!offering) {
    const known = INSTANCE_OFFERINGS.map((o) => o.instanceType).join(', ');
    throw new RangeError(`unknown EC2 instance type "${instanceType}"; known types: ${known}`);
  }
  return offering;
};

/** Offerings with GPUs of a type (id or alias), fewest GPUs first; empty for GPUs not sold on EC2. */
export const instanceOfferingsFor = (gpuType: string): InstanceOfferingEntry[] => {
  const id = getGpuType(gpuType).id;
  return INSTANCE_OFFERINGS.filter((o) => o.gpuType === id).sort(
    (a, b) => a.gpus - b.gpus || a.onDemandPerHour - b.onDemandPerHour,
  );
};

/** On-demand price of one GPU-hour on an offering. */
export const pricePerGpuHour = (offering: InstanceOffering): number =>
  offering.onDemandPerHour / offering.gpus;
