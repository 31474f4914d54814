import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../model/perf.ts';
import { AnalyticPerfModel } from './analytic.ts';
import { calibrateComputeScale } from './calibration.ts';
import { indexMeasuredTables, MeasuredPerfModel, singleGpuPoints } from './measured.ts';
import { ColocationMemo, ThroughputMemo } from './memo.ts';
import { packedEstimate } from './packing.ts';
import { DEFAULT_PERF_PARAMETERS, type PerfParameters } from './parameters.ts';
import { DEFAULT_PERF_CATALOG, type PerfCatalog, resolveModelRef } from './query.ts';
import type { MeasuredTables } from './tables.ts';

/**
 * Measured data where it exists for the query, the analytic model elsewhere; `source` tells which.
 * Co-location: a pair measured on this GPU type and count, else the memory check, else a pair measured
 * elsewhere (another type, or one GPU), else the interference model.
 */
export class CompositePerfModel implements PerfModel {
  readonly name = 'composite';
  private readonly estimates = new ThroughputMemo<ThroughputEstimate>();
  private readonly colocations = new ColocationMemo<ColocationEstimate>();

  constructor(
    readonly analytic: AnalyticPerfModel,
    readonly measured?: MeasuredPerfModel,
  ) {}

  throughput(query: ThroughputQuery): ThroughputEstimate {
    return this.estimates.get(query, () => {
      if (query.partner) {
        const alone = this.throughput({ ...query, partner: undefined });
        return packedEstimate(alone, this.colocation(query.gpuType, query.gpus, query, query.partner));
      }
      return this.measured?.tryThroughput(query) ?? this.analytic.throughput(query);
    });
  }

  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    return this.colocations.get(gpuType, gpus, a, b, () => {
      const exact = this.measured?.tryColocation(gpuType, gpus, a, b);
      if (exact) return exact;
      if (!this.analytic.pairFitsInMemory(gpuType, gpus, a, b))
        return { normalized: [0, 0], source: 'analytic' };
      if (this.measured) {
        const catalog = this.analytic.catalog;
        const context = `co-location on ${gpus} × ${gpuType}`;
        const x = resolveModelRef(catalog, a, context);
        const y = resolveModelRef(catalog, b, context);
        const borrowed = this.measured.pairs.transferred(
          catalog.gpu(gpuType).id,
          gpus,
          { model: x.profile.id, batchSize: x.batchSize },
          { model: y.profile.id, batchSize: y.batchSize },
        );
        if (borrowed) return borrowed;
      }
      return this.analytic.colocation(gpuType, gpus, a, b);
    });
  }
}

export interface CompositeOptions {
  readonly parameters?: PerfParameters;
  readonly catalog?: PerfCatalog;
  /** Fit per-model compute multipliers to the measured single-GPU data (default true); explicit ones win. */
  readonly calibrate?: boolean;
}

/** Builds the composite model from measured tables (any of them may be absent). */
export const createCompositePerfModel = (
  tables: MeasuredTables,
  options: CompositeOptions = {},
): CompositePerfModel => {
  const catalog = options.catalog ?? DEFAULT_PERF_CATALOG;
  const base = options.parameters ?? DEFAULT_PERF_PARAMETERS;
  const indexes = indexMeasuredTables(tables, catalog);
  let parameters = base;
  if (options.calibrate ?? true) {
    const fitted = calibrateComputeScale(
      singleGpuPoints(indexes),
      new AnalyticPerfModel({ parameters: base, catalog }),
    );
    parameters = { ...base, computeScale: { ...fitted, ...base.computeScale } };
  }
  const analytic = new AnalyticPerfModel({ parameters, catalog });
  const measured = new MeasuredPerfModel(indexes, { catalog, comm: analytic });
  return new CompositePerfModel(analytic, measured);
};
