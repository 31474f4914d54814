import { z } from 'zod';
import { findGpuType } from './gpus.ts';
import {
  FAMILIES,
  type LayeredModel,
  layerSchema,
  parameterCount,
  type TensorParallelComm,
  totalFlops,
} from './layers.ts';
import type { ModelProfile } from './models.ts';

/**
 * Models outside the catalog (docs/job-spec.md "Models outside the catalog"). A job names any model; when the
 * name is not a catalog model it may declare a profile — aggregate figures (parameters, FLOPs and activation bytes
 * per sample) or a layer chain as Crius's models use — and otherwise starts from a conservative estimate derived
 * from what it requests. Either way the scheduling core sees an ordinary `ModelProfile` under an id that names the
 * model and the figures behind it, so two jobs that call different models by one name never share estimates.
 */

/** Names outside the catalog: a letter or digit, then letters, digits and `._/:+-` (Hugging Face style ids fit). */
export const USER_MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._/:+-]{0,127}$/;
export const MAX_PROFILE_LAYERS = 2048;

const positive = (max: number) =>
  z.number('must be a number').positive('must be greater than 0').max(max, `must be at most ${max}`);
const nonNegative = (max: number) =>
  z.number('must be a number').nonnegative('must not be negative').max(max, `must be at most ${max}`);

const AGGREGATE_FIELDS = ['parameters', 'flopsPerSample', 'activationBytesPerSample'] as const;
const AGGREGATE_ONLY = ['bytesPerParameter', 'parallelism', 'boundaryActivationBytesPerSample'] as const;
const CHAIN_ONLY = ['stateBytesPerParamByte', 'maxTensorParallel'] as const;

/** What a job spec's `profile` may say: aggregate figures, or a layer chain (never both). */
export const declaredProfileSchema = z
  .strictObject({
    family: z.enum(FAMILIES).optional(),
    parameters: positive(1e13).optional(),
    /** Training FLOPs per sample, forward + backward. */
    flopsPerSample: positive(1e18).optional(),
    /** Activation bytes kept for backward, per sample. */
    activationBytesPerSample: nonNegative(1e13).optional(),
    /** Training-state bytes per parameter (weights, gradients, optimizer): 16 = mixed-precision Adam. */
    bytesPerParameter: positive(64).optional(),
    parallelism: z.enum(['dp', 'hybrid']).optional(),
    boundaryActivationBytesPerSample: nonNegative(1e13).optional(),
    layers: z
      .array(layerSchema)
      .min(1, 'must list at least one layer')
      .max(MAX_PROFILE_LAYERS, `must list at most ${MAX_PROFILE_LAYERS} layers`)
      .optional(),
    stateBytesPerParamByte: positive(32).optional(),
    maxTensorParallel: z.int('must be an integer').min(1, 'must be at least 1').max(1024).optional(),
  })
  .superRefine((p, ctx) => {
    const issue = (field: string, message: string) =>
      ctx.addIssue({ code: 'custom', path: [field], message });
    if (p.layers) {
      for (const f of [...AGGREGATE_FIELDS, ...AGGREGATE_ONLY])
        if (p[f] !== undefined)
          issue(f, 'must not be given with layers: a chain’s totals come from its layers');
      if (!p.layers.some((l) => l.flops > 0)) issue('layers', 'at least one layer must have flops > 0');
      return;
    }
    for (const f of AGGREGATE_FIELDS)
      if (p[f] === undefined) issue(f, 'is required (or describe the model as a layer chain with layers)');
    for (const f of CHAIN_ONLY) if (p[f] !== undefined) issue(f, 'applies only to a layer chain (layers)');
    if (p.boundaryActivationBytesPerSample !== undefined && p.parallelism !== 'hybrid')
      issue('boundaryActivationBytesPerSample', 'applies only with parallelism: hybrid');
  });

export type DeclaredProfile = z.infer<typeof declaredProfileSchema>;

/** What the job's request says about a model nobody profiled: the estimate is derived from it. */
export interface EstimateRequest {
  readonly batchSize: number;
  readonly gpus: number;
  readonly gpuTypes?: readonly string[];
}

/**
 * The conservative estimate (no profile): the job is assumed to fill, at its requested GPU count and batch, the
 * memory of the smallest GPU it allows (T4's 15 GiB when it allows any) — half training state, half activations of
 * its per-GPU batch — so it is never given fewer GPUs than it asked for, a smaller GPU, or a partner on its GPUs.
 * Its compute is that of a dense transformer of that size over 2,048 tokens per sample: pessimistic for most models.
 */
export const ESTIMATE_REFERENCE_MEMORY_GIB = 15;
export const ESTIMATE_TOKENS_PER_SAMPLE = 2048;
export const ESTIMATE_BYTES_PER_PARAMETER = 16;
/** The per-process overhead the analytic model reserves (perf/parameters.ts memoryOverheadGiB) and a 1 % margin. */
const ESTIMATE_OVERHEAD_GIB = 1;
const ESTIMATE_FILL = 0.99;
const GIB = 2 ** 30;

/** The memory (GiB) an unprofiled job is assumed to fill: its smallest allowed GPU type, else the reference. */
export const estimateMemoryGiB = (gpuTypes?: readonly string[]): number => {
  const sizes = (gpuTypes ?? []).map((t) => findGpuType(t)?.memoryGiB).filter((m) => m !== undefined);
  return sizes.length > 0 ? Math.min(...sizes) : ESTIMATE_REFERENCE_MEMORY_GIB;
};

export const estimatedModelProfile = (id: string, name: string, request: EstimateRequest): ModelProfile => {
  const memoryGiB = estimateMemoryGiB(request.gpuTypes);
  const usable = Math.max(0, memoryGiB - ESTIMATE_OVERHEAD_GIB) * GIB * ESTIMATE_FILL;
  const parameters = usable / 2 / ESTIMATE_BYTES_PER_PARAMETER;
  const localBatch = Math.ceil(request.batchSize / request.gpus);
  return {
    id,
    family: 'transformer',
    aliases: [],
    parameters,
    flopsPerSample: 6 * parameters * ESTIMATE_TOKENS_PER_SAMPLE,
    defaultBatchSize: request.batchSize,
    memory: {
      bytesPerParameter: ESTIMATE_BYTES_PER_PARAMETER,
      activationBytesPerSample: usable / 2 / localBatch,
    },
    skew: 'high',
    kind: 'dp',
    description: `${name}: conservative estimate (no profile; fills ${memoryGiB} GiB per GPU at ${request.gpus} GPUs, batch ${request.batchSize})`,
    source: 'estimate from the job request (lib/core/catalog/user-models.ts)',
  };
};

const BYTES_PER_WEIGHT = 2;
const DEFAULT_TP: TensorParallelComm = { collective: 'all-reduce', count: 4 };

/** A declared layer chain as the Cell estimator's `LayeredModel` (defaults as for Crius's JSON profiles). */
export const declaredLayeredModel = (
  id: string,
  name: string,
  profile: DeclaredProfile,
  batchSize: number,
): LayeredModel | undefined =>
  profile.layers
    ? {
        id,
        family: profile.family ?? 'transformer',
        layers: profile.layers.map((l, i) => ({
          name: l.name ?? `layer-${i + 1}`,
          flops: l.flops,
          paramBytes: l.paramBytes,
          activationBytes: l.activationBytes,
          outputBytes: l.outputBytes,
          tensorParallel: l.tensorParallel ?? DEFAULT_TP,
        })),
        batchSizes: [batchSize],
        stateBytesPerParamByte: profile.stateBytesPerParamByte ?? 8,
        maxTensorParallel: profile.maxTensorParallel ?? 64,
        description: `${name}: declared layer chain`,
        source: 'job spec profile',
      }
    : undefined;

/** A declared profile as the aggregate `ModelProfile` the performance model reads (a chain is summed). */
export const declaredModelProfile = (
  id: string,
  name: string,
  profile: DeclaredProfile,
  batchSize: number,
): ModelProfile => {
  const chain = declaredLayeredModel(id, name, profile, batchSize);
  const common = {
    id,
    aliases: [],
    defaultBatchSize: batchSize,
    skew: 'low' as const,
    source: 'job spec profile',
  };
  if (chain) {
    const boundaries = chain.layers.slice(0, -1).map((l) => l.outputBytes);
    return {
      ...common,
      family: chain.family,
      parameters: parameterCount(chain),
      flopsPerSample: totalFlops(chain),
      memory: {
        bytesPerParameter: BYTES_PER_WEIGHT * chain.stateBytesPerParamByte,
        activationBytesPerSample: chain.layers.reduce((s, l) => s + l.activationBytes, 0),
      },
      kind: 'hybrid',
      boundaryActivationBytesPerSample: boundaries.length > 0 ? Math.max(...boundaries) : 0,
      description: `${name}: declared layer chain of ${chain.layers.length} layers`,
    };
  }
  const kind = profile.parallelism ?? 'dp';
  return {
    ...common,
    family: profile.family ?? 'transformer',
    parameters: profile.parameters!,
    flopsPerSample: profile.flopsPerSample!,
    memory: {
      bytesPerParameter: profile.bytesPerParameter ?? ESTIMATE_BYTES_PER_PARAMETER,
      activationBytesPerSample: profile.activationBytesPerSample!,
    },
    kind,
    ...(kind === 'hybrid'
      ? { boundaryActivationBytesPerSample: profile.boundaryActivationBytesPerSample ?? 0 }
      : {}),
    description: `${name}: declared profile`,
  };
};

/** A model outside the catalog as a job names it: what the job spec keeps beside the model id. */
export interface UserModelRef {
  readonly name: string;
  readonly profile?: DeclaredProfile;
}

/** Where a user model's figures come from: the job's declared profile, or the conservative estimate. */
export type ModelBasis = 'declared' | 'estimated';

/**
 * The id the scheduler keys a user model by: its name and a digest of the figures behind it (the declared profile,
 * or the request the estimate comes from). `@` never occurs in a catalog id or a user name.
 */
export const userModelId = (ref: UserModelRef, request: EstimateRequest): string => {
  const basis = ref.profile
    ? { profile: ref.profile }
    : {
        estimate: {
          batchSize: request.batchSize,
          gpus: request.gpus,
          memoryGiB: estimateMemoryGiB(request.gpuTypes),
        },
      };
  return `${ref.name}@${digest(canonicalJson(basis))}`;
};

/** The display name of a model id: a user model's name without its digest, a catalog id as it is. */
export const modelDisplayName = (id: string): string => {
  const at = id.lastIndexOf('@');
  return at > 0 ? id.slice(0, at) : id;
};

/** The aggregate profile of a job's user model, whichever basis it has. */
export const userModelProfile = (id: string, ref: UserModelRef, request: EstimateRequest): ModelProfile =>
  ref.profile
    ? declaredModelProfile(id, ref.name, ref.profile, request.batchSize)
    : estimatedModelProfile(id, ref.name, request);

/** 48 bits of two FNV-1a hashes (pure, no crypto dependency in the core): enough to tell a name's profiles apart. */
const digest = (text: string): string => {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 7);
  }
  return `${(a >>> 0).toString(16).padStart(8, '0')}${((b >>> 0) & 0xffff).toString(16).padStart(4, '0')}`;
};

const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};
