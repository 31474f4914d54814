import type { GpuTypeEntry } from '../../catalog/gpus.ts';
import type { Layer, LayeredModel } from '../../catalog/layers.ts';
import type { ModelFamily } from '../../catalog/models.ts';
import type { Level } from '../../model/topology.ts';
import { DEFAULT_PERF_PARAMETERS, type PerfParameters } from '../../perf/parameters.ts';
import type { Collective, Tier } from './comm-table.ts';

/**
 * The cost of one pipeline stage under one data × tensor split, and of one stage boundary: what Crius obtains
 * by single-device profiling plus interpolated communication (§5.1). The agile estimator evaluates the all-DP
 * and all-TP splits; the executor model (adaptive-perf.ts) evaluates every split the tuner may pick.
 */

export interface CostParameters {
  readonly perf: PerfParameters;
  /**
   * Samples per GPU (per micro-batch, after the data and tensor split) at which kernels reach half the
   * family's peak efficiency: small per-GPU work runs at low utilisation.
   */
  readonly halfEfficiencySamples: Readonly<Partial<Record<ModelFamily, number>>>;
  readonly defaultHalfEfficiencySamples: number;
  /** Slow-down per doubling of the tensor-parallel degree (smaller GEMMs, replicated element-wise work). */
  readonly tensorParallelOverhead: number;
  /**
   * Extra compute of rematerialisation: stages keep only each layer's input for the micro-batches in flight
   * and recompute the forward pass during backward (Alpa's default), i.e. 4 passes instead of 3.
   */
  readonly rematFlopsFactor: number;
}

export const DEFAULT_COST_PARAMETERS: CostParameters = {
  perf: DEFAULT_PERF_PARAMETERS,
  // One 1,024-token sequence already fills a GPU's GEMMs; images are small units of work.
  halfEfficiencySamples: { transformer: 0.125, moe: 0.25, cnn: 2 },
  defaultHalfEfficiencySamples: 1,
  tensorParallelOverhead: 0.06,
  rematFlopsFactor: 4 / 3,
};

/** How the Cell's GPUs sit: GPUs per host (consecutive GPU indices share a host) and the tier joining hosts. */
export interface CellLayout {
  readonly gpusPerHost: number;
  readonly level: Level;
}

/** GPU counts per stage of a Cell: the data and tensor degrees (their product is the stage's GPUs). */
export interface StageSplit {
  readonly dp: number;
  readonly tp: number;
}

export interface StageSpec {
  readonly index: number;
  /** Layers of the stage, in order. */
  readonly layers: readonly Layer[];
  readonly gpus: number;
  /** Index of the stage's first GPU within the Cell. */
  readonly offset: number;
}

/** Seconds for one collective of `bytes` over `ranks` GPUs at `tier` (tables for the estimator, α-β for truth). */
export type CommCost = (collective: Collective, tier: Tier, ranks: number, bytes: number) => number;

export interface CellCostContext {
  readonly model: LayeredModel;
  readonly gpu: GpuTypeEntry;
  readonly stages: number;
  /** Micro-batches per iteration (Crius follows GPipe: 4 × stages). */
  readonly microBatches: number;
  /** Samples per micro-batch (global batch ÷ micro-batches). */
  readonly microBatch: number;
  readonly layout: CellLayout;
  readonly comm: CommCost;
  /** Multiplier on compute speed (> 1 faster): the executor's hidden efficiency, or a learned calibration. */
  readonly computeSpeed: number;
  readonly parameters: CostParameters;
}

export interface StageCost {
  readonly feasible: boolean;
  readonly reason?: string;
  /** Seconds per micro-batch, forward + backward, including the split's tensor-parallel collectives. */
  readonly computeSeconds: number;
  readonly tensorCommSeconds: number;
  /** Seconds per iteration of the data-parallel gradient all-reduce. */
  readonly gradSyncSeconds: number;
  readonly memoryBytes: number;
}

const GIB = 2 ** 30;

const hostOf = (gpu: number, layout: CellLayout): number => Math.floor(gpu / layout.gpusPerHost);

/** The tier a group of GPUs [first, first + count) talks over. */
export const groupTier = (first: number, count: number, layout: CellLayout): Tier =>
  hostOf(first, layout) === hostOf(first + count - 1, layout) ? 'intra' : hostTier(layout);

const hostTier = (layout: CellLayout): Tier => (layout.level === 'machine' ? 'intra' : layout.level);

const hostsSpanned = (first: number, count: number, layout: CellLayout): number =>
  hostOf(first + count - 1, layout) - hostOf(first, layout) + 1;

const infeasible = (reason: string, memoryBytes = 0): StageCost => ({
  feasible: false,
  reason,
  computeSeconds: Number.POSITIVE_INFINITY,
  tensorCommSeconds: 0,
  gradSyncSeconds: 0,
  memoryBytes,
});

/** Compute, memory and intra-stage communication of one stage under one split. */
export const stageCost = (ctx: CellCostContext, stage: StageSpec, split: StageSplit): StageCost => {
  const { dp, tp } = split;
  const { model, gpu, parameters: p } = ctx;
  if (dp * tp !== stage.gpus)
    throw new RangeError(`stage ${stage.index}: ${dp} × ${tp} ≠ ${stage.gpus} GPUs`);
  if (tp > model.maxTensorParallel)
    return infeasible(`tensor-parallel degree ${tp} exceeds ${model.id}'s ${model.maxTensorParallel}`);
  const samples = ctx.microBatch / dp;
  if (!(samples >= 1))
    return infeasible(`micro-batch of ${ctx.microBatch} samples cannot split over ${dp} replicas`);

  let flops = 0;
  let params = 0;
  let checkpoint = 0;
  let working = 0;
  for (const layer of stage.layers) {
    flops += layer.flops;
    params += layer.paramBytes;
    checkpoint += layer.outputBytes;
    working = Math.max(working, layer.activationBytes);
  }
  // 1F1B keeps at most (stages − index) micro-batches in flight on a stage; only layer inputs are kept.
  const inFlight = Math.min(ctx.microBatches, ctx.stages - stage.index);
  const memoryBytes =
    (params * model.stateBytesPerParamByte) / tp +
    inFlight * samples * checkpoint +
    (samples * working) / tp +
    p.perf.memoryOverheadGiB * GIB;
  if (memoryBytes > gpu.memoryGiB * GIB) {
    return infeasible(
      `stage ${stage.index} needs ${(memoryBytes / GIB).toFixed(1)} GiB per GPU with dp ${dp} × tp ${tp}; ${gpu.id} has ${gpu.memoryGiB} GiB`,
      memoryBytes,
    );
  }

  const perGpuSamples = samples / tp;
  const half = p.halfEfficiencySamples[model.family] ?? p.defaultHalfEfficiencySamples;
  const peakShare = Math.min(
    p.perf.maxEfficiency,
    (p.perf.familyEfficiency[model.family] ?? p.perf.maxEfficiency) *
      (p.perf.gpuEfficiencyScale[gpu.id] ?? 1),
  );
  const efficiency =
    (peakShare * (perGpuSamples / (perGpuSamples + half))) / (1 + p.tensorParallelOverhead * Math.log2(tp));
  const kernel =
    (flops * p.rematFlopsFactor * perGpuSamples) / (gpu.peakTflops * 1e12 * efficiency) / ctx.computeSpeed;

  let tensorComm = 0;
  if (tp > 1) {
    const tier = groupTier(stage.offset, tp, ctx.layout);
    for (const layer of stage.layers) {
      const t = layer.tensorParallel;
      if (t.count > 0) tensorComm += t.count * ctx.comm(t.collective, tier, tp, layer.outputBytes * samples);
    }
  }

  let gradSync = 0;
  if (dp > 1 && params > 0) {
    const bytes = params / tp;
    const hosts = hostsSpanned(stage.offset, stage.gpus, ctx.layout);
    if (hosts === 1) gradSync = ctx.comm('all-reduce', 'intra', dp, bytes);
    else {
      // Hierarchical: the replicas of a host reduce over the intra-node link, then one ring across hosts.
      const perHost = Math.max(1, Math.ceil(dp / hosts));
      gradSync =
        ctx.comm('all-reduce', 'intra', perHost, bytes) +
        ctx.comm('all-reduce', hostTier(ctx.layout), Math.min(hosts, dp), bytes);
    }
  }
  return {
    feasible: true,
    computeSeconds: kernel + tensorComm,
    tensorCommSeconds: tensorComm,
    gradSyncSeconds: gradSync,
    memoryBytes,
  };
};

/**
 * Communication between stage s−1 and s per micro-batch: the boundary activations forward and their gradients
 * backward. DP stages connect by send/recv (pairs in parallel); a TP receiver all-gathers its replica's slice.
 */
export const boundarySeconds = (
  ctx: CellCostContext,
  prev: StageSpec,
  stage: StageSpec,
  split: StageSplit,
): number => {
  const last = prev.layers[prev.layers.length - 1];
  const bytes = (last?.outputBytes ?? 0) * ctx.microBatch;
  if (bytes <= 0) return 0;
  const layout = ctx.layout;
  const prevHosts = hostsSpanned(prev.offset, prev.gpus, layout);
  const hosts = hostsSpanned(stage.offset, stage.gpus, layout);
  const sameHost =
    prevHosts === 1 && hosts === 1 && hostOf(prev.offset, layout) === hostOf(stage.offset, layout);
  const p2p = sameHost
    ? ctx.comm('send-recv', 'intra', 2, bytes / Math.min(prev.gpus, stage.gpus))
    : ctx.comm('send-recv', hostTier(layout), 2, bytes / Math.min(prevHosts, hosts));
  const gather =
    split.tp > 1
      ? ctx.comm('all-gather', groupTier(stage.offset, split.tp, layout), split.tp, bytes / split.dp)
      : 0;
  return 2 * (p2p + gather);
};

/** Data × tensor splits of `gpus` GPUs into powers of two, from all-DP to all-TP. */
export const splitsOf = (gpus: number): StageSplit[] => {
  const out: StageSplit[] = [];
  for (let tp = 1; tp <= gpus; tp *= 2) if (gpus % tp === 0) out.push({ dp: gpus / tp, tp });
  return out;
};
