import { getGpuType } from '../../catalog/gpus.ts';
import { findLayeredModel, type LayeredModel } from '../../catalog/layers.ts';
import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../../model/perf.ts';
import type { Allocation, Cell } from '../../model/plan.ts';
import { Memo, throughputKey } from '../../perf/memo.ts';
import { alphaBetaSeconds, linkOf } from './comm-table.ts';
import { type CellLayout, type CostParameters, DEFAULT_COST_PARAMETERS, splitsOf } from './cost.ts';
import { batchOf, stageCountsFor } from './estimator.ts';
import { evaluateCell } from './evaluate.ts';
import { determineStages, type StageAssignment } from './stages.ts';

/**
 * Adaptive parallelism as an executor sees it (Alpa): a job with a layer chain runs the fastest plan the
 * tuner finds — any data × tensor split per stage — on the GPUs it holds. Without a Cell the tuner also picks
 * the stage count (what baselines get: "we enable Alpa's adaptive parallelism in the baselines' job training
 * process", Crius §8.1); with a Cell the stages are fixed and only the Cell's tuning hints are searched.
 *
 * The simulator uses it as ground truth: communication is the exact α-β cost, compute is scaled by a hidden
 * per-(model, GPU type) speed the scheduler does not know. Models without a layer chain, co-location, and
 * allocations no plan fits (Alpa would fall back to more micro-batches) go to the `base` model.
 */
export interface AdaptivePerfOptions {
  readonly base: PerfModel;
  /** Hidden compute-speed multiplier per (model, GPU type), > 1 = faster than profiled; default 1. */
  readonly computeSpeed?: (model: string, gpuType: string) => number;
  readonly parameters?: CostParameters;
  readonly models?: (name: string) => LayeredModel | undefined;
  /** Per-(job, allocation) multiplier on throughput (the ground truth's noise), and its largest value. */
  readonly jobNoise?: (jobId: string, allocation: Allocation, query: ThroughputQuery) => number;
  readonly maxJobNoise?: number;
}

export class AdaptiveParallelPerfModel implements PerfModel {
  readonly name: string;
  private readonly base: PerfModel;
  private readonly speed: (model: string, gpuType: string) => number;
  private readonly parameters: CostParameters;
  private readonly models: (name: string) => LayeredModel | undefined;
  private readonly plans = new Memo<ThroughputEstimate>();
  private readonly splits = new Memo<StageAssignment | null>();
  private readonly noise?: AdaptivePerfOptions['jobNoise'];
  readonly maxJobNoise: number;

  constructor(options: AdaptivePerfOptions) {
    if (options.jobNoise) this.noise = options.jobNoise;
    this.maxJobNoise = options.maxJobNoise ?? 1;
    this.base = options.base;
    this.speed = options.computeSpeed ?? (() => 1);
    this.parameters = options.parameters ?? DEFAULT_COST_PARAMETERS;
    this.models = options.models ?? findLayeredModel;
    this.name = `adaptive(${options.base.name})`;
  }

  throughput(query: ThroughputQuery): ThroughputEstimate {
    const model = query.partner ? undefined : this.models(query.model);
    if (!model) return this.base.throughput(query);
    return this.adaptiveThroughput(query) ?? this.base.throughput(query);
  }

  /**
   * The best plan over stage counts and splits for a layered model, or undefined when no plan of that space
   * fits (or the model has no layer chain): no fallback to the base model.
   */
  adaptiveThroughput(query: ThroughputQuery): ThroughputEstimate | undefined {
    const model = query.partner ? undefined : this.models(query.model);
    if (!model) return undefined;
    const best = this.plans.get(`free|${throughputKey(query)}`, () => {
      let found: ThroughputEstimate | undefined;
      for (const stages of stageCountsFor(query.gpus, model.layers.length)) {
        const split = this.stagesOf(model, query.gpus, stages);
        if (!split) continue;
        const e = this.run(model, query, split);
        if (e && (!found || e.iterationsPerSecond > found.iterationsPerSecond)) found = e;
      }
      return found ?? NO_PLAN;
    });
    return best === NO_PLAN ? undefined : best;
  }

  cellThroughput(query: ThroughputQuery, cell: Cell): ThroughputEstimate {
    const model = query.partner ? undefined : this.models(query.model);
    if (!model) return this.base.throughput(query);
    const hints = cell.tuningHints?.map((h) => h.map((s) => `${s.dp}x${s.tp}`).join(',')).join(';') ?? '';
    const key = `${throughputKey(query)}|${cell.stageGpus.join(',')}|${cell.stageLayers?.join(',') ?? ''}|${hints}`;
    return this.plans.get(key, () => {
      const split =
        cell.stageLayers && cell.stageLayers.length === cell.stageGpus.length
          ? { stageGpus: cell.stageGpus, stageLayers: cell.stageLayers }
          : this.stagesOf(model, query.gpus, cell.stageGpus.length);
      const sum = cell.stageGpus.reduce((s, g) => s + g, 0);
      const e = split && sum === query.gpus ? this.run(model, query, split, cell) : undefined;
      // A Cell that does not fit what the job holds: the launcher re-plans freely.
      return e ?? this.throughput(query);
    });
  }

  /** One job on one allocation: its Cell's (or its free plan's) throughput times the job's noise. */
  jobThroughput(jobId: string, allocation: Allocation, query: ThroughputQuery): ThroughputEstimate {
    const plain = allocation.cell ? this.cellThroughput(query, allocation.cell) : this.throughput(query);
    const noise = plain.iterationsPerSecond > 0 ? (this.noise?.(jobId, allocation, query) ?? 1) : 1;
    if (!(noise > 0 && Number.isFinite(noise)) || noise === 1) return plain;
    return {
      ...plain,
      iterationsPerSecond: plain.iterationsPerSecond * noise,
      computeSeconds: plain.computeSeconds / noise,
      commSeconds: plain.commSeconds / noise,
    };
  }

  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    return this.base.colocation(gpuType, gpus, a, b);
  }

  private stagesOf(model: LayeredModel, gpus: number, stages: number): StageAssignment | undefined {
    return (
      this.splits.get(
        `${model.id}|${gpus}|${stages}`,
        () => determineStages(model.layers, gpus, stages) ?? null,
      ) ?? undefined
    );
  }

  private run(
    model: LayeredModel,
    query: ThroughputQuery,
    stages: StageAssignment,
    cell?: Cell,
  ): ThroughputEstimate | undefined {
    const gpu = getGpuType(query.gpuType);
    const layout = layoutOf(query);
    const links = new Map<string, ReturnType<typeof linkOf>>();
    const evaluation = evaluateCell({
      model,
      batchSize: batchOf(model, query.batchSize),
      gpu,
      stages,
      layout,
      comm: (collective, tier, ranks, bytes) => {
        let link = links.get(tier);
        if (!link) {
          link = linkOf(gpu.id, tier, this.parameters.perf);
          links.set(tier, link);
        }
        return alphaBetaSeconds(collective, ranks, bytes, link);
      },
      computeSpeed: this.speed(model.id, gpu.id),
      parameters: this.parameters,
      splitsFor: (s) => {
        const hinted = cell?.tuningHints?.[s.index];
        return hinted && hinted.length > 0 ? hinted : splitsOf(s.gpus);
      },
    });
    if (!evaluation.feasible) return undefined;
    return {
      iterationsPerSecond: 1 / evaluation.iterationSeconds,
      computeSeconds: evaluation.computeOnlySeconds,
      commSeconds: Math.max(0, evaluation.iterationSeconds - evaluation.computeOnlySeconds),
      source: 'analytic',
    };
  }
}

const NO_PLAN: ThroughputEstimate = {
  iterationsPerSecond: 0,
  computeSeconds: 0,
  commSeconds: 0,
  source: 'analytic',
};

/** The placement shape as a Cell layout: GPUs spread evenly over the hosts, joined at the shape's level. */
export const layoutOf = (query: ThroughputQuery): CellLayout => {
  const hosts = Math.max(1, query.shape.hosts);
  return hosts === 1
    ? { gpusPerHost: query.gpus, level: 'machine' }
    : {
        gpusPerHost: Math.ceil(query.gpus / hosts),
        level: query.shape.level === 'machine' ? 'rack' : query.shape.level,
      };
};
