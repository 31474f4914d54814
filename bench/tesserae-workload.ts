import type { JobSpec } from '../lib/core/model/job.ts';
import type { PerfModel } from '../lib/core/model/perf.ts';
import { toJobSpecs } from '../lib/sim/workload.ts';
import { generateGavelTrace } from '../lib/traces/generators/gavel.ts';
import { Random } from '../lib/traces/generators/random.ts';
import { generateShockwaveTrace } from '../lib/traces/generators/shockwave.ts';
import type { Trace } from '../lib/traces/types.ts';

/**
 * Tesserae's workloads (Table 1): data-parallel ResNet-50, VGG-19, DCGAN and PointNet, and 3D-parallel GPT
 * models. Per-GPU batches 32 and 64 (inside Table 1's ranges, and small enough for a 16 GB V100, so the V100
 * variant runs the same jobs). The language models are GPT2-Medium — Blox's measured co-location pairs,
 * Tesserae's own profile — and GPT3-Medium, at global batch 512, for distributed jobs only (Table 1 trains
 * them with Megatron-LM across GPUs).
 */
export const TESSERAE_DATA_PARALLEL = ['resnet50', 'vgg19', 'dcgan', 'pointnet'] as const;
export const TESSERAE_PER_GPU_BATCHES = [32, 64] as const;
export const TESSERAE_LANGUAGE_MODELS = ['gpt2-medium', 'gpt3-medium'] as const;
export const TESSERAE_LANGUAGE_BATCH = 512;

export type TesseraeTraceShape = 'shockwave' | 'gavel';

export interface TesseraeWorkloadOptions {
  readonly shape: TesseraeTraceShape;
  readonly jobs: number;
  readonly ratePerHour: number;
  readonly seed: number;
  /** Converts trace durations to iterations: the GPU the durations are meant on (Tesserae: A100). */
  readonly referenceGpuType: string;
  readonly perf: PerfModel;
}

/** Seeded job specs: Shockwave- or Gavel-style sizes and Poisson arrivals, models from Tesserae's Table 1. */
export const tesseraeWorkload = (options: TesseraeWorkloadOptions): JobSpec[] => {
  const generate = options.shape === 'shockwave' ? generateShockwaveTrace : generateGavelTrace;
  const trace = withTesseraeModels(
    generate({ jobs: options.jobs, ratePerHour: options.ratePerHour, seed: options.seed }),
    options.seed,
  );
  const { jobs, issues } = toJobSpecs(trace, {
    perf: options.perf,
    referenceGpuType: options.referenceGpuType,
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new Error(
      `tesserae workload: ${issues.length} job(s) rejected, e.g. ${first.jobId}: ${first.message}`,
    );
  }
  return jobs;
};

/** Replaces every job's model and batch with one drawn from Tesserae's list (stream 7 of the seed). */
export const withTesseraeModels = (trace: Trace, seed: number): Trace => {
  const rng = new Random(seed, 7);
  return {
    ...trace,
    jobs: trace.jobs.map((job) => {
      const choices = TESSERAE_DATA_PARALLEL.length + (job.gpus >= 2 ? TESSERAE_LANGUAGE_MODELS.length : 0);
      const pick = rng.int(0, choices - 1);
      if (pick >= TESSERAE_DATA_PARALLEL.length) {
        const model = TESSERAE_LANGUAGE_MODELS[pick - TESSERAE_DATA_PARALLEL.length]!;
        return { ...job, model, batchSize: TESSERAE_LANGUAGE_BATCH };
      }
      const perGpu = TESSERAE_PER_GPU_BATCHES[rng.int(0, TESSERAE_PER_GPU_BATCHES.length - 1)]!;
      return { ...job, model: TESSERAE_DATA_PARALLEL[pick]!, batchSize: perGpu * job.gpus };
    }),
  };
};
