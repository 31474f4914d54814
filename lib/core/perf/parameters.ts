import type { ModelFamily } from '../catalog/models.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import type { Level } from '../model/topology.ts';

/**
 * Every tunable number of the analytic performance model, as plain data (JSON-serialisable) so that a
 * calibration step can fit and store them without touching code. See docs/performance-model.md.
 */

/** One network tier between hosts: which share of the host NIC rate a collective gets, and its per-step latency. */
export interface TierParameters {
  readonly bandwidthFactor: number;
  readonly latencyUs: number;
}

/** Per-model communication parameters; `levelScale` is the knob a Dally Table I calibration fits. */
export interface ModelCommParameters {
  /** Gradient bytes all-reduced per parameter (4: PyTorch DDP reduces fp32 gradients, also under AMP). */
  readonly gradientBytesPerParameter: number;
  /** Gradient bucket size in bytes: one all-reduce per bucket, so latency terms are paid per bucket (DDP: 25 MiB). */
  readonly bucketBytes: number;
  /** Share of the backward pass that hides gradient communication (0 = none, 1 = all of it). */
  readonly overlap: number;
  /** Multiplier on the raw communication time per consolidation level (1 = pure α-β model). */
  readonly levelScale: Readonly<Record<Level, number>>;
  /** Micro-batch size of hybrid (pipeline) training and of gradient accumulation. */
  readonly microBatchSize: number;
}

/** A model's deviations from the default communication parameters; any level scale left out stays 1. */
export type ModelCommOverride = Partial<Omit<ModelCommParameters, 'levelScale'>> & {
  readonly levelScale?: Readonly<Partial<Record<Level, number>>>;
};

export interface PerfParameters {
  /** Tiers above the host: `rack` = same bottom network node, `network` = across racks. */
  readonly tiers: Readonly<{ rack: TierParameters; network: TierParameters }>;
  /** Host NIC rate (Gbit/s) per GPU type, overriding the catalog's `hostNetworkGbps`. */
  readonly hostNetworkGbps: Readonly<Record<GpuTypeId, number>>;
  /** Fraction of the GPU's peak that training of a model family achieves at large batch. */
  readonly familyEfficiency: Readonly<Record<ModelFamily, number>>;
  /** Per GPU type multiplier on the family efficiency (e.g. fp32-only GPUs reach more of their peak). */
  readonly gpuEfficiencyScale: Readonly<Record<GpuTypeId, number>>;
  /** Upper bound on any efficiency after scaling. */
  readonly maxEfficiency: number;
  /** Fixed per-iteration cost outside the math kernels (launches, optimizer step, input pipeline). */
  readonly iterationOverheadSeconds: number;
  /** Per-process device memory that is not model state or activations (CUDA context, workspaces). */
  readonly memoryOverheadGiB: number;
  readonly comm: Readonly<{
    default: ModelCommParameters;
    /** Overrides by model id. */
    models: Readonly<Record<string, ModelCommOverride>>;
  }>;
  /** Multiplier on the compute time per model id, fitted to measured data (see perf/calibration.ts). */
  readonly computeScale: Readonly<Record<string, number>>;
  /** Co-location interference model: slowdown per unit of the partner's GPU utilisation (memory/cache contention). */
  readonly interference: Readonly<{ contention: number }>;
}

export const DEFAULT_PERF_PARAMETERS: PerfParameters = {
  tiers: {
    // A non-blocking top-of-rack switch: nearly the NIC rate, switch latency.
    rack: { bandwidthFactor: 0.9, latencyUs: 10 },
    // Across racks: a 4:1 oversubscribed spine and more hops.
    network: { bandwidthFactor: 0.25, latencyUs: 40 },
  },
  hostNetworkGbps: {},
  familyEfficiency: {
    cnn: 0.35,
    transformer: 0.45,
    moe: 0.3,
    rnn: 0.2,
    recommendation: 0.15,
    rl: 0.03,
    gan: 0.3,
    pointcloud: 0.25,
    speech: 0.3,
    detection: 0.3,
  },
  // K80 and P100 have no tensor cores: their peak is fp32, of which training reaches a larger share.
  gpuEfficiencyScale: { K80: 1.6, P100: 1.6 },
  maxEfficiency: 0.9,
  iterationOverheadSeconds: 0.005,
  memoryOverheadGiB: 1,
  comm: {
    default: {
      gradientBytesPerParameter: 4,
      bucketBytes: 25 * 2 ** 20,
      overlap: 0.5,
      levelScale: { machine: 1, rack: 1, network: 1 },
      microBatchSize: 1,
    },
    models: {},
  },
  computeScale: {},
  interference: { contention: 0.15 },
};

/**
 * Dally Table I calibration (docs/dally.md): per-model communication of the Dally evaluation network (NVSwitch
 * machines, Quantum racks, Spectrum spine as simulated by ASTRA-sim), fitted by `fitLevelScale`
 * (lib/core/plugins/dally/table-one.ts) so that 8 A100-40GB GPUs at the default per-GPU batch spend Table I's share of compute
 * communicating at each level; `overlap: 0` because Dally's iteration is compute + communication. An overlay for the
 * Dally clusters (`dallyPerfParameters()`), not the default: Table I is far from EC2's measured and modelled networks
 * (VGG-11 pays 7 % across racks, ResNet-18 2,749 %). Refit when the compute model or the catalog changes.
 */
export const DALLY_TABLE_I_COMM: Readonly<Record<string, ModelCommOverride>> = {
  vgg11: { overlap: 0, levelScale: { machine: 0.07974, rack: 0.1248, network: 0.04706 } },
  alexnet: { overlap: 0, levelScale: { machine: 0.1086, rack: 0.1852, network: 0.4607 } },
  mobilenetv3: { overlap: 0, levelScale: { machine: 16.14, rack: 96.65, network: 651.9 } },
  resnet18: { overlap: 0, levelScale: { machine: 7.703, rack: 34.04, network: 261 } },
  resnet50: { overlap: 0, levelScale: { machine: 17.17, rack: 4.47, network: 4.574 } },
  'bert-large': { overlap: 0, levelScale: { machine: 2.065, rack: 1.54, network: 15.47 } },
};

/** Parameters with `overrides` applied one level deep per section (tiers, maps and comm entries merge). */
export const mergePerfParameters = (
  base: PerfParameters,
  overrides: DeepPartial<PerfParameters> = {},
): PerfParameters => {
  const o = overrides;
  const models: Record<string, ModelCommOverride> = { ...base.comm.models };
  for (const [id, entry] of Object.entries(o.comm?.models ?? {})) {
    const prev = models[id] ?? {};
    models[id] = { ...prev, ...stripUndefined(entry), ...levelScaleOf(prev.levelScale, entry?.levelScale) };
  }
  return {
    tiers: {
      rack: { ...base.tiers.rack, ...stripUndefined(o.tiers?.rack) },
      network: { ...base.tiers.network, ...stripUndefined(o.tiers?.network) },
    },
    hostNetworkGbps: { ...base.hostNetworkGbps, ...definedNumbers(o.hostNetworkGbps) },
    familyEfficiency: { ...base.familyEfficiency, ...stripUndefined(o.familyEfficiency) },
    gpuEfficiencyScale: { ...base.gpuEfficiencyScale, ...definedNumbers(o.gpuEfficiencyScale) },
    maxEfficiency: o.maxEfficiency ?? base.maxEfficiency,
    iterationOverheadSeconds: o.iterationOverheadSeconds ?? base.iterationOverheadSeconds,
    memoryOverheadGiB: o.memoryOverheadGiB ?? base.memoryOverheadGiB,
    comm: {
      default: {
        ...base.comm.default,
        ...stripUndefined(o.comm?.default),
        levelScale: { ...base.comm.default.levelScale, ...stripUndefined(o.comm?.default?.levelScale) },
      },
      models,
    },
    computeScale: { ...base.computeScale, ...definedNumbers(o.computeScale) },
    interference: { ...base.interference, ...stripUndefined(o.interference) },
  };
};

/** The communication parameters in force for a model id. */
export const commParametersFor = (params: PerfParameters, modelId: string): ModelCommParameters => {
  const own = params.comm.models[modelId];
  if (!own) return params.comm.default;
  return {
    ...params.comm.default,
    ...own,
    levelScale: { ...params.comm.default.levelScale, ...own.levelScale },
  };
};

/**
 * Checks every number: positive where a rate or size, in [0, 1] where a share. Throws a RangeError naming
 * the field path and the rule.
 */
export const validatePerfParameters = (params: PerfParameters): PerfParameters => {
  const positive = (path: string, v: number): void => {
    if (!(Number.isFinite(v) && v > 0))
      throw new RangeError(`perf parameters: ${path} must be a number > 0, got ${v}`);
  };
  const nonNegative = (path: string, v: number): void => {
    if (!(Number.isFinite(v) && v >= 0))
      throw new RangeError(`perf parameters: ${path} must be a number ≥ 0, got ${v}`);
  };
  const share = (path: string, v: number): void => {
    if (!(Number.isFinite(v) && v >= 0 && v <= 1)) {
      throw new RangeError(`perf parameters: ${path} must be in [0, 1], got ${v}`);
    }
  };
  for (const tier of ['rack', 'network'] as const) {
    positive(`tiers.${tier}.bandwidthFactor`, params.tiers[tier].bandwidthFactor);
    nonNegative(`tiers.${tier}.latencyUs`, params.tiers[tier].latencyUs);
  }
  for (const [k, v] of Object.entries(params.hostNetworkGbps)) positive(`hostNetworkGbps.${k}`, v);
  for (const [k, v] of Object.entries(params.familyEfficiency)) positive(`familyEfficiency.${k}`, v);
  for (const [k, v] of Object.entries(params.gpuEfficiencyScale)) positive(`gpuEfficiencyScale.${k}`, v);
  share('maxEfficiency', params.maxEfficiency);
  positive('maxEfficiency', params.maxEfficiency);
  nonNegative('iterationOverheadSeconds', params.iterationOverheadSeconds);
  nonNegative('memoryOverheadGiB', params.memoryOverheadGiB);
  const checkComm = (path: string, c: ModelCommOverride): void => {
    if (c.gradientBytesPerParameter !== undefined)
      nonNegative(`${path}.gradientBytesPerParameter`, c.gradientBytesPerParameter);
    if (c.bucketBytes !== undefined) positive(`${path}.bucketBytes`, c.bucketBytes);
    if (c.overlap !== undefined) share(`${path}.overlap`, c.overlap);
    if (c.microBatchSize !== undefined) positive(`${path}.microBatchSize`, c.microBatchSize);
    for (const [level, v] of Object.entries(c.levelScale ?? {}))
      nonNegative(`${path}.levelScale.${level}`, v);
  };
  checkComm('comm.default', params.comm.default);
  for (const [id, c] of Object.entries(params.comm.models)) checkComm(`comm.models.${id}`, c);
  for (const [k, v] of Object.entries(params.computeScale)) positive(`computeScale.${k}`, v);
  nonNegative('interference.contention', params.interference.contention);
  if (params.interference.contention > 1) {
    throw new RangeError(
      `perf parameters: interference.contention must be ≤ 1, got ${params.interference.contention}`,
    );
  }
  return params;
};

export type DeepPartial<T> = {
  readonly [K in keyof T]?: NonNullable<T[K]> extends object ? DeepPartial<NonNullable<T[K]>> : T[K];
};

/** The defined entries of a partial object (so that an explicit `undefined` never erases a base value). */
const stripUndefined = <T extends object>(o: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };

const definedNumbers = (
  o: Readonly<Record<string, number | undefined>> | undefined,
): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (v !== undefined) out[k] = v;
  return out;
};

const levelScaleOf = (
  prev: Readonly<Partial<Record<Level, number>>> | undefined,
  next: Readonly<Partial<Record<Level, number>>> | undefined,
): { levelScale?: Readonly<Partial<Record<Level, number>>> } =>
  prev || next ? { levelScale: { ...prev, ...definedNumbers(next) } } : {};
