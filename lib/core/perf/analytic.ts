import type { GpuTypeEntry } from '../catalog/gpus.ts';
import type { ModelProfile } from '../catalog/models.ts';
import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../model/perf.ts';
import type { Level } from '../model/topology.ts';
import { hierarchicalAllReduceSeconds, type Link, transferSeconds } from './collectives.ts';
import { type GpuUse, interferenceSpeeds } from './interference.ts';
import { colocationKey, Memo, throughputKey } from './memo.ts';
import { gibToBytes, memoryPerGpuBytes } from './memory.ts';
import { cannotRun, packedEstimate } from './packing.ts';
import {
  commParametersFor,
  DEFAULT_PERF_PARAMETERS,
  type ModelCommParameters,
  type PerfParameters,
  validatePerfParameters,
} from './parameters.ts';
import {
  DEFAULT_PERF_CATALOG,
  evenSpread,
  type PerfCatalog,
  type ResolvedQuery,
  resolveModelRef,
  resolveQuery,
} from './query.ts';

/** How the analytic model arrived at an iteration time; `fits: false` = the job cannot run there. */
export interface AnalyticBreakdown {
  readonly fits: boolean;
  /** Why the job cannot run, when it cannot. */
  readonly reason?: string;
  readonly memoryBytesPerGpu: number;
  readonly memoryCapacityBytes: number;
  /** GPUs sharing one model replica (1 for data-parallel models). */
  readonly modelParallel: number;
  readonly dataParallel: number;
  /** Samples per replica per iteration. */
  readonly localBatch: number;
  /** Time the GPU's math units are busy per iteration (calibrated). */
  readonly kernelSeconds: number;
  /** Kernel time plus the fixed per-iteration overhead (calibrated). */
  readonly computeSeconds: number;
  /** Raw gradient all-reduce time, before overlap. */
  readonly gradientSyncSeconds: number;
  /** Pipeline-stage transfers of hybrid models (never overlapped). */
  readonly modelParallelCommSeconds: number;
  readonly exposedCommSeconds: number;
  readonly iterationSeconds: number;
}

export interface AnalyticOptions {
  readonly parameters?: PerfParameters;
  readonly catalog?: PerfCatalog;
}

/** Backward ≈ 2 × forward, so it is 2/3 of the kernel time; only it can hide gradient communication. */
const BACKWARD_SHARE = 2 / 3;

/**
 * Throughput from first principles: FLOPs over effective peak for compute, hierarchical ring all-reduce
 * with per-tier α-β for gradients, a per-GPU memory check. See docs/performance-model.md.
 */
export class AnalyticPerfModel implements PerfModel {
  readonly name = 'analytic';
  readonly parameters: PerfParameters;
  readonly catalog: PerfCatalog;
  private readonly breakdowns = new Memo<AnalyticBreakdown>();
  private readonly estimates = new Memo<ThroughputEstimate>();
  private readonly colocations = new Memo<ColocationEstimate>();

  constructor(options: AnalyticOptions = {}) {
    this.parameters = validatePerfParameters(options.parameters ?? DEFAULT_PERF_PARAMETERS);
    this.catalog = options.catalog ?? DEFAULT_PERF_CATALOG;
  }

  throughput(query: ThroughputQuery): ThroughputEstimate {
    return this.estimates.get(throughputKey(query), () => {
      if (query.partner) {
        const alone = this.throughput({ ...query, partner: undefined });
        return packedEstimate(alone, this.colocation(query.gpuType, query.gpus, query, query.partner));
      }
      const b = this.breakdown(query);
      if (!b.fits) return cannotRun('analytic');
      return {
        iterationsPerSecond: 1 / b.iterationSeconds,
        computeSeconds: b.computeSeconds,
        commSeconds: b.exposedCommSeconds,
        source: 'analytic',
      };
    });
  }

  /** The full cost breakdown of a query (its `partner` is ignored). */
  breakdown(query: ThroughputQuery): AnalyticBreakdown {
    const alone = query.partner ? { ...query, partner: undefined } : query;
    return this.breakdowns.get(throughputKey(alone), () => this.compute(resolveQuery(this.catalog, alone)));
  }

  /** Memory check plus the utilisation interference model; `estimated` unless memory rules the pair out. */
  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    return this.colocations.get(colocationKey(gpuType, gpus, a, b), () => {
      const ua = this.gpuUse(gpuType, gpus, a);
      const ub = this.gpuUse(gpuType, gpus, b);
      if (!ua || !ub) return { normalized: [0, 0], source: 'analytic' };
      const capacity = gibToBytes(this.catalog.gpu(gpuType).memoryGiB);
      if (ua.memoryBytes + ub.memoryBytes > capacity) return { normalized: [0, 0], source: 'analytic' };
      return {
        normalized: interferenceSpeeds(ua, ub, capacity, this.parameters.interference.contention),
        source: 'estimated',
      };
    });
  }

  /** Whether both jobs, each on all `gpus` GPUs, fit in one GPU's memory together. */
  pairFitsInMemory(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): boolean {
    const ua = this.gpuUse(gpuType, gpus, a);
    const ub = this.gpuUse(gpuType, gpus, b);
    return !!ua && !!ub && ua.memoryBytes + ub.memoryBytes <= gibToBytes(this.catalog.gpu(gpuType).memoryGiB);
  }

  /**
   * Exposed data-parallel gradient communication per iteration for a model whose compute time per
   * iteration is known (e.g. measured on one GPU): used to extend measured single-GPU data to a placement.
   */
  dataParallelCommSeconds(query: ThroughputQuery, computeSeconds: number): number {
    const r = resolveQuery(this.catalog, query);
    const comm = commParametersFor(this.parameters, r.profile.id);
    const sync = this.gradientSyncSeconds(r, comm, 1);
    return Math.max(0, sync - comm.overlap * BACKWARD_SHARE * computeSeconds);
  }

  /**
   * Single-GPU compute seconds for `localBatch` samples without the model's calibration factor: the
   * reference the calibration divides measured step times by.
   */
  uncalibratedComputeSeconds(profile: ModelProfile, gpu: GpuTypeEntry, localBatch: number): number {
    return this.kernelSeconds(profile, gpu, localBatch, 1, 1) + this.parameters.iterationOverheadSeconds;
  }

  private gpuUse(gpuType: string, gpus: number, ref: ModelRef): GpuUse | undefined {
    const { profile, batchSize } = resolveModelRef(this.catalog, ref, `co-location on ${gpus} × ${gpuType}`);
    const b = this.breakdown({
      model: profile.id,
      batchSize,
      gpuType,
      gpus,
      shape: { level: 'machine', hosts: 1 },
    });
    if (!b.fits) return undefined;
    return { utilisation: b.kernelSeconds / b.iterationSeconds, memoryBytes: b.memoryBytesPerGpu };
  }

  private compute(r: ResolvedQuery): AnalyticBreakdown {
    const { profile, gpu } = r;
    const comm = commParametersFor(this.parameters, profile.id);
    const capacity = gibToBytes(gpu.memoryGiB);
    const choice = this.chooseModelParallel(r, comm, capacity);
    if (!choice.fits) return { ...infeasible(capacity, choice.memoryBytes, choice.reason) };
    const { modelParallel: m, localBatch, memoryBytes } = choice;
    const d = r.gpus / m;
    const scale = this.parameters.computeScale[profile.id] ?? 1;
    const microBatches = profile.kind === 'hybrid' ? Math.ceil(localBatch / comm.microBatchSize) : 1;
    const kernel = this.kernelSeconds(profile, gpu, localBatch, m, microBatches) * scale;
    const computeSeconds = kernel + this.parameters.iterationOverheadSeconds * scale;
    const gradientSync = this.gradientSyncSeconds(r, comm, m);
    const mpComm = this.modelParallelCommSeconds(r, comm, m, microBatches);
    const exposed = Math.max(0, gradientSync - comm.overlap * BACKWARD_SHARE * kernel) + mpComm;
    return {
      fits: true,
      memoryBytesPerGpu: memoryBytes,
      memoryCapacityBytes: capacity,
      modelParallel: m,
      dataParallel: d,
      localBatch,
      kernelSeconds: kernel,
      computeSeconds,
      gradientSyncSeconds: gradientSync,
      modelParallelCommSeconds: mpComm,
      exposedCommSeconds: exposed,
      iterationSeconds: computeSeconds + exposed,
    };
  }

  /**
   * Data-parallel models replicate on every GPU. Hybrid models split each replica over the smallest
   * model-parallel degree m (a divisor of the GPU count) whose per-GPU memory fits.
   */
  private chooseModelParallel(
    r: ResolvedQuery,
    comm: ModelCommParameters,
    capacity: number,
  ):
    | { fits: true; modelParallel: number; localBatch: number; memoryBytes: number }
    | {
        fits: false;
        reason: string;
        memoryBytes: number;
      } {
    const degrees = r.profile.kind === 'hybrid' ? divisors(r.gpus) : [1];
    let smallest = Number.POSITIVE_INFINITY;
    for (const m of degrees) {
      const d = r.gpus / m;
      if (r.batchSize < d) continue;
      const localBatch = r.batchSize / d;
      const memoryBytes = memoryPerGpuBytes(r.profile, {
        modelParallel: m,
        localBatch,
        microBatchSize: comm.microBatchSize,
        overheadGiB: this.parameters.memoryOverheadGiB,
      });
      if (memoryBytes <= capacity) return { fits: true, modelParallel: m, localBatch, memoryBytes };
      smallest = Math.min(smallest, memoryBytes);
    }
    if (smallest === Number.POSITIVE_INFINITY) {
      return {
        fits: false,
        memoryBytes: 0,
        reason: `global batch ${r.batchSize} is smaller than the ${r.gpus} data-parallel replicas`,
      };
    }
    const gib = (bytes: number): string => (bytes / 2 ** 30).toFixed(1);
    return {
      fits: false,
      memoryBytes: smallest,
      reason: `needs ${gib(smallest)} GiB per GPU, ${r.gpu.id} has ${gib(capacity)} GiB`,
    };
  }

  private kernelSeconds(
    profile: ModelProfile,
    gpu: GpuTypeEntry,
    localBatch: number,
    modelParallel: number,
    microBatches: number,
  ): number {
    const p = this.parameters;
    const efficiency = Math.min(
      p.maxEfficiency,
      (p.familyEfficiency[profile.family] ?? p.maxEfficiency) * (p.gpuEfficiencyScale[gpu.id] ?? 1),
    );
    // GPipe/1F1B bubble: (m − 1) idle slots over M micro-batches.
    const bubble = modelParallel > 1 ? 1 + (modelParallel - 1) / microBatches : 1;
    return (
      ((profile.flopsPerSample * localBatch) / (modelParallel * gpu.peakTflops * 1e12 * efficiency)) * bubble
    );
  }

  /** Raw all-reduce of each GPU's gradient shard across the data-parallel replicas, scaled for the level. */
  private gradientSyncSeconds(r: ResolvedQuery, comm: ModelCommParameters, m: number): number {
    const d = r.gpus / m;
    if (d <= 1) return 0;
    const bytes = (r.profile.parameters * comm.gradientBytesPerParameter) / m;
    const perHost = evenSpread(r.gpus, r.hosts)[0] ?? 1;
    // A model-parallel group stays inside a host when it fits there; its peers on the host are other replicas.
    const ranksPerHost = m <= perHost ? Math.max(1, Math.floor(perHost / m)) : 1;
    const hosts = Math.min(r.hosts, Math.ceil(d / ranksPerHost));
    const seconds = hierarchicalAllReduceSeconds({
      bytes,
      ranksPerHost: Math.min(ranksPerHost, d),
      hosts,
      intra: this.intraLink(r.gpu),
      inter: this.interLink(r.gpu, r.level),
      calls: Math.max(1, Math.ceil(bytes / comm.bucketBytes)),
    });
    return seconds * comm.levelScale[r.level];
  }

  /** Activations and their gradients crossing the m − 1 stage boundaries, on the pipeline's critical path. */
  private modelParallelCommSeconds(
    r: ResolvedQuery,
    comm: ModelCommParameters,
    m: number,
    microBatches: number,
  ): number {
    if (m <= 1) return 0;
    const perHost = evenSpread(r.gpus, r.hosts)[0] ?? 1;
    const link = m <= perHost ? this.intraLink(r.gpu) : this.interLink(r.gpu, r.level);
    const bytes = comm.microBatchSize * (r.profile.boundaryActivationBytesPerSample ?? 0);
    const transfers = 2 * (microBatches + m - 2);
    return transfers * transferSeconds(bytes, link) * comm.levelScale[r.level];
  }

  private intraLink(gpu: GpuTypeEntry): Link {
    return { bandwidth: gpu.intraNodeGBps * 1e9, latency: gpu.intraNodeLatencyUs * 1e-6 };
  }

  /** The host NIC as seen at a tier; at machine level there is none, so the intra-node link stands in. */
  private interLink(gpu: GpuTypeEntry, level: Level): Link {
    if (level === 'machine') return this.intraLink(gpu);
    const tier = this.parameters.tiers[level];
    const gbps = this.parameters.hostNetworkGbps[gpu.id] ?? gpu.hostNetworkGbps;
    return { bandwidth: ((gbps * 1e9) / 8) * tier.bandwidthFactor, latency: tier.latencyUs * 1e-6 };
  }
}

const infeasible = (capacity: number, memoryBytes: number, reason: string): AnalyticBreakdown => ({
  fits: false,
  reason,
  memoryBytesPerGpu: memoryBytes,
  memoryCapacityBytes: capacity,
  modelParallel: 0,
  dataParallel: 0,
  localBatch: 0,
  kernelSeconds: 0,
  computeSeconds: 0,
  gradientSyncSeconds: 0,
  modelParallelCommSeconds: 0,
  exposedCommSeconds: 0,
  iterationSeconds: Number.POSITIVE_INFINITY,
});

const divisors = (n: number): number[] => {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) if (n % i === 0) out.push(i);
  return out;
};
