import type { GpuTypeEntry } from '../../catalog/gpus.ts';
import type { LayeredModel } from '../../catalog/layers.ts';
import {
  boundarySeconds,
  type CellCostContext,
  type CellLayout,
  type CommCost,
  type CostParameters,
  type StageCost,
  type StageSpec,
  type StageSplit,
  stageCost,
} from './cost.ts';
import { bestPlan, type PipelineProblem } from './pipeline.ts';
import type { StageAssignment } from './stages.ts';

/** Crius follows GPipe: B = 4 · N_S micro-batches per iteration. */
export const MICRO_BATCHES_PER_STAGE = 4;

export interface CellEvaluationInput {
  readonly model: LayeredModel;
  readonly batchSize: number;
  readonly gpu: GpuTypeEntry;
  readonly stages: StageAssignment;
  readonly layout: CellLayout;
  readonly comm: CommCost;
  /** Multiplier on compute speed (hidden executor efficiency or learned calibration); 1 = as profiled. */
  readonly computeSpeed: number;
  readonly parameters: CostParameters;
  /** The data × tensor splits a stage may take (estimator: DP-only and TP-only; executor: any). */
  readonly splitsFor: (stage: StageSpec) => readonly StageSplit[];
}

export interface CellEvaluation {
  readonly feasible: boolean;
  readonly reason?: string;
  /** Seconds per iteration including the fixed per-iteration overhead; Infinity when infeasible. */
  readonly iterationSeconds: number;
  /** The same pipeline with every communication term zeroed: its compute-only time. */
  readonly computeOnlySeconds: number;
  /** Chosen split per stage. */
  readonly splits: readonly StageSplit[];
  readonly stageMemoryBytes: readonly number[];
}

export const stageSpecs = (model: LayeredModel, stages: StageAssignment): StageSpec[] => {
  let offset = 0;
  return stages.stageGpus.map((gpus, index) => {
    const start = stages.stageLayers[index]!;
    const end = stages.stageLayers[index + 1] ?? model.layers.length;
    const spec = { index, layers: model.layers.slice(start, end), gpus, offset };
    offset += gpus;
    return spec;
  });
};

const infeasible = (reason: string): CellEvaluation => ({
  feasible: false,
  reason,
  iterationSeconds: Number.POSITIVE_INFINITY,
  computeOnlySeconds: Number.POSITIVE_INFINITY,
  splits: [],
  stageMemoryBytes: [],
});

/** Per-stage costs of every allowed split, and the best assembled plan under the pipeline formula. */
export const evaluateCell = (input: CellEvaluationInput): CellEvaluation => {
  const { model, stages, parameters } = input;
  const n = stages.stageGpus.length;
  const microBatches = MICRO_BATCHES_PER_STAGE * n;
  if (input.batchSize < microBatches)
    return infeasible(
      `global batch ${input.batchSize} has fewer samples than the ${microBatches} micro-batches`,
    );
  const ctx: CellCostContext = {
    model,
    gpu: input.gpu,
    stages: n,
    microBatches,
    microBatch: input.batchSize / microBatches,
    layout: input.layout,
    comm: input.comm,
    computeSpeed: input.computeSpeed,
    parameters,
  };
  const specs = stageSpecs(model, stages);
  const splits = specs.map((s) => input.splitsFor(s));
  const costs: StageCost[][] = specs.map((s, i) => splits[i]!.map((split) => stageCost(ctx, s, split)));
  for (let s = 0; s < n; s++) {
    if (!costs[s]!.some((c) => c.feasible))
      return infeasible(costs[s]![0]?.reason ?? `stage ${s} has no split`);
  }
  const comms: number[][][] = specs.map((spec, s) =>
    s === 0
      ? []
      : splits[s - 1]!.map(() => splits[s]!.map((split) => boundarySeconds(ctx, specs[s - 1]!, spec, split))),
  );
  const problem = (withComm: boolean): PipelineProblem => ({
    options: splits.map((o) => o.length),
    microBatches,
    compute: (s, o) => {
      const c = costs[s]![o]!;
      return c.feasible ? c.computeSeconds - (withComm ? 0 : c.tensorCommSeconds) : Number.POSITIVE_INFINITY;
    },
    gradSync: (s, o) => (withComm ? costs[s]![o]!.gradSyncSeconds : 0),
    comm: (s, a, b) => (withComm ? comms[s]![a]![b]! : 0),
  });
  const best = bestPlan(problem(true));
  if (!best) return infeasible('no assembled plan fits');
  const overhead = parameters.perf.iterationOverheadSeconds;
  // The compute-only time of the chosen plan: the pipeline formula with communication removed.
  const computeOnly = problem(false);
  let computeOnlySeconds = 0;
  {
    const computes = best.plan.map((o, s) => computeOnly.compute(s, o));
    const max = Math.max(...computes);
    computeOnlySeconds = computes.reduce((a, b) => a + b, 0) + (microBatches - 1) * max + overhead;
  }
  return {
    feasible: true,
    iterationSeconds: best.iterationSeconds + overhead,
    computeOnlySeconds,
    splits: best.plan.map((o, s) => splits[s]![o]!),
    stageMemoryBytes: best.plan.map((o, s) => costs[s]![o]!.memoryBytes),
  };
};
