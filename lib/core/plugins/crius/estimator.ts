import { getGpuType } from '../../catalog/gpus.ts';
import { findLayeredModel, type LayeredModel } from '../../catalog/layers.ts';
import { findModelProfile } from '../../catalog/models.ts';
import { declaredLayeredModel } from '../../catalog/user-models.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobSpec } from '../../model/job.ts';
import type { Cell, StageParallelism } from '../../model/plan.ts';
import { Memo } from '../../perf/memo.ts';
import { CommTables } from './comm-table.ts';
import {
  boundarySeconds,
  type CellCostContext,
  type CellLayout,
  type CostParameters,
  DEFAULT_COST_PARAMETERS,
  type StageCost,
  type StageSpec,
  type StageSplit,
  stageCost,
} from './cost.ts';
import { evaluateCell, MICRO_BATCHES_PER_STAGE, stageSpecs } from './evaluate.ts';
import { assemblePlans, type PipelinePlan, type PipelineProblem } from './pipeline.ts';
import { determineStages, type StageAssignment } from './stages.ts';
import { tuningHints } from './tuning.ts';

/**
 * Agile Cell estimation (Crius §5.1): per stage, the all-DP and all-TP "profiles" (compute time per
 * micro-batch and memory per GPU), communication from the tables, 2^{N_S} assembled plans, the best one under
 * the pipeline formula. Every estimate is memoised: a round never recomputes an unchanged Cell.
 */

export interface CellQuery {
  readonly model: string;
  /** Global batch size; 0 = the model's default. */
  readonly batchSize: number;
  readonly gpuType: GpuTypeId;
  readonly gpus: number;
  readonly stages: number;
  readonly layout: CellLayout;
}

export interface CellEstimate {
  readonly feasible: boolean;
  readonly reason?: string;
  readonly iterationSeconds: number;
  /** 0 when the Cell is infeasible (out of memory, batch too small, unsplittable). */
  readonly iterationsPerSecond: number;
  /** The Cell with its stages, the estimator's DP/TP favour per stage and the pruned tuning candidates. */
  readonly cell?: Cell;
  readonly stageMemoryBytes: readonly number[];
}

export interface StageProfile {
  readonly dp: StageCost;
  readonly tp: StageCost;
}

/** The layout a consolidated placement of `gpus` GPUs gets on hosts of `largestHost` GPUs. */
export const consolidatedLayout = (gpus: number, largestHost: number): CellLayout =>
  gpus <= largestHost
    ? { gpusPerHost: Math.max(1, gpus), level: 'machine' }
    : { gpusPerHost: largestHost, level: 'rack' };

/** Pipeline stage counts of a Cell: powers of two up to the GPU count and the number of layers. */
export const stageCountsFor = (gpus: number, layers: number): number[] => {
  const out: number[] = [];
  for (let s = 1; s <= Math.min(gpus, layers); s *= 2) out.push(s);
  return out;
};

const BOTH: readonly StageParallelism[] = ['dp', 'tp'];
const splitOf = (p: StageParallelism, gpus: number): StageSplit =>
  p === 'dp' ? { dp: gpus, tp: 1 } : { dp: 1, tp: gpus };

const infeasible = (reason: string): CellEstimate => ({
  feasible: false,
  reason,
  iterationSeconds: Number.POSITIVE_INFINITY,
  iterationsPerSecond: 0,
  stageMemoryBytes: [],
});

export interface CellEstimatorOptions {
  readonly parameters?: CostParameters;
  readonly comm?: CommTables;
  /** Layer chains by model name; the built-in catalog by default. */
  readonly models?: (name: string) => LayeredModel | undefined;
}

export class CellEstimator {
  readonly parameters: CostParameters;
  readonly comm: CommTables;
  private readonly models: (name: string) => LayeredModel | undefined;
  private readonly estimates = new Memo<CellEstimate>();
  private readonly bests = new Memo<CellEstimate>();
  private readonly splits = new Memo<StageAssignment | null>();
  private readonly chains = new Map<string, LayeredModel | undefined>();

  constructor(options: CellEstimatorOptions = {}) {
    this.parameters = options.parameters ?? DEFAULT_COST_PARAMETERS;
    this.comm = options.comm ?? new CommTables(this.parameters.perf);
    this.models = options.models ?? findLayeredModel;
  }

  /**
   * Makes a job's declared layer chain (a model outside the catalog) known under its model id. Safe to share across
   * rounds: a user model's id digests its profile, so an id never names two chains.
   */
  learn(spec: JobSpec): void {
    const profile = spec.userModel?.profile;
    if (!profile?.layers || this.chains.get(spec.model)) return;
    this.chains.set(
      spec.model,
      declaredLayeredModel(spec.model, spec.userModel!.name, profile, spec.batchSize),
    );
  }

  /** The model's layer chain, or undefined when it is known only as an aggregate profile. */
  layered(model: string): LayeredModel | undefined {
    if (!this.chains.has(model)) this.chains.set(model, this.models(model));
    return this.chains.get(model);
  }

  /** Stage determination for a model on `gpus` GPUs in `stages` stages (memoised). */
  stagesOf(model: LayeredModel, gpus: number, stages: number): StageAssignment | undefined {
    return (
      this.splits.get(
        `${model.id}|${gpus}|${stages}`,
        () => determineStages(model.layers, gpus, stages) ?? null,
      ) ?? undefined
    );
  }

  estimate(q: CellQuery): CellEstimate {
    return this.estimates.get(key(q), () => this.compute(q));
  }

  /** The best Cell over stage counts for (model, batch, type, gpus, layout). */
  best(q: Omit<CellQuery, 'stages'>): CellEstimate {
    return this.bests.get(key({ ...q, stages: 0 }), () => {
      const model = this.layered(q.model);
      if (!model) return infeasible(`no layer chain for model ${q.model}`);
      let best: CellEstimate | undefined;
      let firstReason: string | undefined;
      for (const stages of stageCountsFor(q.gpus, model.layers.length)) {
        const e = this.estimate({ ...q, stages });
        if (!e.feasible) firstReason ??= e.reason;
        else if (!best || e.iterationsPerSecond > best.iterationsPerSecond) best = e;
      }
      return best ?? infeasible(firstReason ?? `no stage count fits ${q.gpus} GPUs`);
    });
  }

  /** Per-stage all-DP and all-TP profiles of a Cell (what two single-device profilings would measure). */
  stageProfiles(q: CellQuery): StageProfile[] | undefined {
    const prepared = this.prepare(q);
    if (typeof prepared === 'string') return undefined;
    const { ctx, specs } = prepared;
    return specs.map((s) => ({
      dp: stageCost(ctx, s, splitOf('dp', s.gpus)),
      tp: stageCost(ctx, s, splitOf('tp', s.gpus)),
    }));
  }

  /** All 2^{N_S} assembled DP/TP plans of a Cell with their iteration times (for inspection and tests). */
  assemble(q: CellQuery): PipelinePlan[] {
    const prepared = this.prepare(q);
    if (typeof prepared === 'string') return [];
    return assemblePlans(prepared.problem);
  }

  /** Number of memoised Cell estimates (the cache a round reuses). */
  get cachedEstimates(): number {
    return this.estimates.size;
  }

  private compute(q: CellQuery): CellEstimate {
    const model = this.layered(q.model);
    if (!model) return infeasible(`no layer chain for model ${q.model}`);
    const stages = this.stagesOf(model, q.gpus, q.stages);
    if (!stages) return infeasible(`${q.gpus} GPUs cannot be split into ${q.stages} power-of-two stages`);
    const gpu = getGpuType(q.gpuType);
    const evaluation = evaluateCell({
      model,
      batchSize: batchOf(model, q.batchSize),
      gpu,
      stages,
      layout: q.layout,
      comm: (collective, tier, ranks, bytes) => this.comm.seconds(collective, gpu.id, tier, ranks, bytes),
      computeSpeed: 1,
      parameters: this.parameters,
      splitsFor: (s) => BOTH.map((p) => splitOf(p, s.gpus)),
    });
    if (!evaluation.feasible) return infeasible(evaluation.reason ?? 'infeasible');
    const parallelism = evaluation.splits.map(
      (s): StageParallelism => (s.tp > 1 && s.dp === 1 ? 'tp' : 'dp'),
    );
    const cell: Cell = {
      gpuType: gpu.id,
      gpus: q.gpus,
      stageGpus: stages.stageGpus,
      stageLayers: stages.stageLayers,
      parallelism,
      tuningHints: tuningHints(stages.stageGpus, parallelism),
    };
    return {
      feasible: true,
      iterationSeconds: evaluation.iterationSeconds,
      iterationsPerSecond: 1 / evaluation.iterationSeconds,
      cell,
      stageMemoryBytes: evaluation.stageMemoryBytes,
    };
  }

  private prepare(
    q: CellQuery,
  ): string | { ctx: CellCostContext; specs: StageSpec[]; problem: PipelineProblem } {
    const model = this.layered(q.model);
    if (!model) return `no layer chain for model ${q.model}`;
    const stages = this.stagesOf(model, q.gpus, q.stages);
    if (!stages) return 'unsplittable';
    const gpu = getGpuType(q.gpuType);
    const n = stages.stageGpus.length;
    const microBatches = MICRO_BATCHES_PER_STAGE * n;
    const ctx: CellCostContext = {
      model,
      gpu,
      stages: n,
      microBatches,
      microBatch: batchOf(model, q.batchSize) / microBatches,
      layout: q.layout,
      comm: (collective, tier, ranks, bytes) => this.comm.seconds(collective, gpu.id, tier, ranks, bytes),
      computeSpeed: 1,
      parameters: this.parameters,
    };
    const specs = stageSpecs(model, stages);
    const costs = specs.map((s) => BOTH.map((p) => stageCost(ctx, s, splitOf(p, s.gpus))));
    const problem: PipelineProblem = {
      options: specs.map(() => 2),
      microBatches,
      compute: (s, o) => (costs[s]![o]!.feasible ? costs[s]![o]!.computeSeconds : Number.POSITIVE_INFINITY),
      gradSync: (s, o) => costs[s]![o]!.gradSyncSeconds,
      comm: (s, _a, b) => boundarySeconds(ctx, specs[s - 1]!, specs[s]!, splitOf(BOTH[b]!, specs[s]!.gpus)),
    };
    return { ctx, specs, problem };
  }
}

/** Global batch of a query: the given one, or the catalog's default (Table 2's middle size) when 0. */
export const batchOf = (model: LayeredModel, batchSize: number): number =>
  batchSize > 0
    ? batchSize
    : (findModelProfile(model.id)?.defaultBatchSize ??
      model.batchSizes[Math.floor(model.batchSizes.length / 2)]!);

const key = (q: CellQuery): string =>
  `${q.model}|${q.batchSize}|${q.gpuType}|${q.gpus}|${q.stages}|${q.layout.gpusPerHost}|${q.layout.level}`;
