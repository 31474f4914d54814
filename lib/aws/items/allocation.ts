/** zod shapes of core values stored inside DynamoDB items (allocations, job specs), checked when read back. */
import { z } from 'zod';
import { declaredProfileSchema } from '../../core/catalog/user-models.ts';
import type { JobSpec } from '../../core/model/job.ts';
import type { Allocation } from '../../core/model/plan.ts';

const cellSchema = z
  .object({
    gpuType: z.string(),
    gpus: z.int().positive(),
    stageGpus: z.array(z.int().positive()).min(1),
    parallelism: z.array(z.enum(['dp', 'tp'])).optional(),
    tuningHints: z.array(z.array(z.object({ dp: z.int(), tp: z.int() }))).optional(),
  })
  .loose();

export const allocationSchema = z
  .object({
    gpuType: z.string().min(1),
    slices: z
      .array(z.object({ hostId: z.string().min(1), gpus: z.array(z.int().nonnegative()).min(1) }))
      .min(1),
    cell: cellSchema.optional(),
    packedWith: z.string().optional(),
    packingStrategy: z.string().optional(),
    ests: z.array(z.array(z.int().nonnegative())).optional(),
  })
  .loose() satisfies z.ZodType<Allocation>;

export const storedJobSpecSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().optional(),
    tenant: z.string().min(1),
    model: z.string().min(1),
    userModel: z.object({ name: z.string().min(1), profile: declaredProfileSchema.optional() }).optional(),
    batchSize: z.number().positive(),
    gpus: z.int().positive(),
    gpuTypes: z.array(z.string()).optional(),
    preferredGpuType: z.string().optional(),
    iterations: z.number().positive(),
    priority: z.number(),
    deadline: z.number().optional(),
    packable: z.boolean(),
    elastic: z
      .object({ maxP: z.int().positive(), minGpus: z.int().nonnegative(), heterogeneous: z.boolean() })
      .optional(),
    submitTime: z.number(),
    labels: z.record(z.string(), z.string()).optional(),
  })
  .loose() satisfies z.ZodType<JobSpec>;
