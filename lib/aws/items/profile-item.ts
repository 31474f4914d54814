/**
 * One item of the Profiles table: measured throughput of a model signature (model × global batch) on one
 * placement (GPU type × count × consolidation level × hosts, and the co-located partner if packed). Samples are
 * summed with atomic ADDs, so concurrent telemetry batches never lose one.
 */
import { z } from 'zod';
import type { Level } from '../../core/model/topology.ts';
import { epochSeconds } from './epoch-seconds.ts';

export const profileItemSchema = z.object({
  signature: z.string().min(1),
  placement: z.string().min(1),
  model: z.string(),
  batchSize: z.number().positive(),
  gpuType: z.string(),
  gpus: z.int().positive(),
  level: z.enum(['machine', 'rack', 'network']),
  hosts: z.int().positive(),
  partner: z.string().optional(),
  samples: z.int().nonnegative(),
  sumIterationsPerSecond: z.number().nonnegative(),
  lastIterationsPerSecond: z.number().nonnegative(),
  lastSamplesPerSecond: z.number().nonnegative().optional(),
  /** Epoch seconds of the latest sample. */
  updatedAt: epochSeconds(),
});

export type ProfileItem = z.infer<typeof profileItemSchema>;

export interface ProfileKey {
  readonly model: string;
  readonly batchSize: number;
  readonly gpuType: string;
  readonly gpus: number;
  readonly level: Level;
  readonly hosts: number;
  /** `model#batchSize` of the job sharing the GPUs, when packed. */
  readonly partner?: string;
}

export const profileSignature = (model: string, batchSize: number): string => `${model}#${batchSize}`;

export const profilePlacement = (key: ProfileKey): string =>
  `${key.gpuType}#${key.gpus}#${key.level}#${key.hosts}${key.partner ? `#with#${key.partner}` : ''}`;

export const meanIterationsPerSecond = (item: ProfileItem): number =>
  item.samples > 0 ? item.sumIterationsPerSecond / item.samples : item.lastIterationsPerSecond;
