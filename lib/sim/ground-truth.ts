import prand from 'pure-rand';
import { findGpuType } from '../core/catalog/gpus.ts';
import { findModelProfile } from '../core/catalog/models.ts';
import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../core/model/perf.ts';
import { type Allocation, allocationGpuKeys } from '../core/model/plan.ts';
import { colocationKey, Memo, throughputKey } from '../core/perf/memo.ts';

export interface GroundTruthOptions {
  readonly seed: number;
  /** σ of the log-normal hidden efficiency multiplier per (model, GPU type). Default 0.15. */
  readonly sigma?: number;
  /** σ of the log-normal co-location multiplier per (pair, GPU type). Default 0.1. */
  readonly colocationSigma?: number;
  /** σ of the log-normal noise per (job, allocation). Default 0.03. */
  readonly noiseSigma?: number;
  /** Every draw is clamped to ±this many σ, so no job is absurdly off. Default 2. */
  readonly clampSigmas?: number;
}

const DEFAULTS = { sigma: 0.15, colocationSigma: 0.1, noiseSigma: 0.03, clampSigmas: 2 } as const;

/**
 * The simulator executor's "real" performance: the scheduler's model with hidden, seeded deviations, so that
 * estimates can be wrong as they are in life. Each (model, GPU type) gets an efficiency multiplier on its
 * compute time (communication is physics the model gets right); each co-located pair a multiplier on its
 * normalised speeds; and `jobThroughput` adds small noise per (job, allocation). Every draw is a pure
 * function of the seed and its key — not of call order — so runs are reproducible.
 */
export class GroundTruthPerfModel implements PerfModel {
  readonly name: string;
  private readonly options: Required<GroundTruthOptions>;
  private readonly estimates = new Memo<ThroughputEstimate>();
  private readonly colocations = new Memo<ColocationEstimate>();
  private readonly multipliers = new Memo<number>();

  constructor(
    private readonly base: PerfModel,
    options: GroundTruthOptions,
  ) {
    if (!Number.isSafeInteger(options.seed)) {
      throw new RangeError(`ground truth: seed must be a safe integer, got ${options.seed}`);
    }
    this.options = { ...DEFAULTS, ...definedOnly(options), seed: options.seed };
    for (const key of ['sigma', 'colocationSigma', 'noiseSigma', 'clampSigmas'] as const) {
      const v = this.options[key];
      if (!(Number.isFinite(v) && v >= 0))
        throw new RangeError(`ground truth: ${key} must be a number ≥ 0, got ${v}`);
    }
    this.name = `ground-truth(${base.name}, seed ${options.seed})`;
  }

  /** The hidden compute-efficiency multiplier of a model on a GPU type (> 1 = faster than estimated). */
  efficiencyMultiplier(model: string, gpuType: string): number {
    const key = `efficiency\u0000${modelId(model)}\u0000${gpuTypeId(gpuType)}`;
    return this.multipliers.get(key, () => this.draw(key, this.options.sigma));
  }

  throughput(query: ThroughputQuery): ThroughputEstimate {
    return this.estimates.get(throughputKey(query), () => {
      const estimate = this.base.throughput(query);
      if (!(estimate.iterationsPerSecond > 0)) return estimate;
      const computeSeconds = estimate.computeSeconds / this.efficiencyMultiplier(query.model, query.gpuType);
      const iterationSeconds = computeSeconds + estimate.commSeconds;
      // A base model that reports no split (compute + comm = 0) keeps its rate, scaled as a whole.
      const iterationsPerSecond =
        iterationSeconds > 0
          ? 1 / iterationSeconds
          : estimate.iterationsPerSecond * this.efficiencyMultiplier(query.model, query.gpuType);
      return { ...estimate, iterationsPerSecond, computeSeconds };
    });
  }

  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    return this.colocations.get(colocationKey(gpuType, gpus, a, b), () => {
      const estimate = this.base.colocation(gpuType, gpus, a, b);
      const pair = `colocation\u0000${gpuTypeId(gpuType)}\u0000${gpus}\u0000${modelId(a.model)}\u0000${a.batchSize}\u0000${modelId(b.model)}\u0000${b.batchSize}`;
      const sigma = this.options.colocationSigma;
      const [x, y] = estimate.normalized;
      return {
        ...estimate,
        normalized: [
          perturbSpeed(x, this.draw(`${pair}\u0000a`, sigma)),
          perturbSpeed(y, this.draw(`${pair}\u0000b`, sigma)),
        ],
      };
    });
  }

  /** The largest factor `jobThroughput`'s noise can speed a job up by: bounds stay bounds under noise. */
  get maxJobNoise(): number {
    return Math.exp(this.options.noiseSigma * this.options.clampSigmas);
  }

  /** Throughput of one job on one allocation: `throughput` × small deterministic noise for that (job, allocation). */
  jobThroughput(jobId: string, allocation: Allocation, query: ThroughputQuery): ThroughputEstimate {
    const estimate = this.throughput(query);
    if (!(estimate.iterationsPerSecond > 0)) return estimate;
    const gpus = allocationGpuKeys(allocation).sort().join(',');
    const noise = this.draw(
      `job\u0000${jobId}\u0000${allocation.gpuType}\u0000${gpus}`,
      this.options.noiseSigma,
    );
    return {
      ...estimate,
      iterationsPerSecond: estimate.iterationsPerSecond * noise,
      computeSeconds: estimate.computeSeconds / noise,
      commSeconds: estimate.commSeconds / noise,
    };
  }

  /** exp(σ·z), z a standard normal drawn from (seed, key), clamped to ±clampSigmas. */
  private draw(key: string, sigma: number): number {
    if (sigma === 0) return 1;
    const z = standardNormal(this.options.seed, key);
    const limit = this.options.clampSigmas;
    return Math.exp(sigma * Math.min(limit, Math.max(-limit, z)));
  }
}

/** Wraps `base` as the simulator's ground truth. */
export const groundTruthModel = (base: PerfModel, options: GroundTruthOptions): GroundTruthPerfModel =>
  new GroundTruthPerfModel(base, options);

/** A standard normal (Box–Muller) from a generator seeded by the seed and a hash of the key. */
const standardNormal = (seed: number, key: string): number => {
  const rng = prand.xoroshiro128plus(fnv1a(`${seed}\u0000${key}`));
  const u1 = prand.unsafeUniformIntDistribution(0, 0x7fffffff, rng) / 0x80000000;
  const u2 = prand.unsafeUniformIntDistribution(0, 0x7fffffff, rng) / 0x80000000;
  return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
};

/** 32-bit FNV-1a hash, as a signed integer seed. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
};

/** A normalised speed times a multiplier, never above 1 unless the base already was (a measured quirk). */
const perturbSpeed = (speed: number, multiplier: number): number =>
  speed > 0 ? Math.min(Math.max(1, speed), speed * multiplier) : speed;

/** Deviations are per model and GPU type, whichever spelling the caller uses. */
const modelId = (name: string): string => findModelProfile(name)?.id ?? name.toLowerCase();
const gpuTypeId = (name: string): string => findGpuType(name)?.id ?? name.toLowerCase();

const definedOnly = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
