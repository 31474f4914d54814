import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../model/perf.ts';
import type { Level } from '../model/topology.ts';
import type { AnalyticPerfModel } from './analytic.ts';
import { BloxIndex } from './blox.ts';
import { GavelIndex, type SingleGpuPoint } from './gavel.ts';
import { MeasuredColocation } from './measured-colocation.ts';
import { colocationKey, Memo, throughputKey } from './memo.ts';
import { packedEstimate } from './packing.ts';
import { PolluxIndex } from './pollux.ts';
import {
  DEFAULT_PERF_CATALOG,
  type PerfCatalog,
  type ResolvedQuery,
  resolveModelRef,
  resolveQuery,
} from './query.ts';
import type { MeasuredTables } from './tables.ts';

/** The measured tables, indexed by catalog ids. */
export interface MeasuredIndexes {
  readonly gavel?: GavelIndex;
  readonly pollux?: PolluxIndex;
  readonly blox?: BloxIndex;
}

/** Indexes the tables by the catalog's model ids and GPU types. */
export const indexMeasuredTables = (
  tables: MeasuredTables,
  catalog: PerfCatalog = DEFAULT_PERF_CATALOG,
): MeasuredIndexes => ({
  ...(tables.gavel ? { gavel: new GavelIndex(tables.gavel, catalog) } : {}),
  ...(tables.pollux ? { pollux: new PolluxIndex(tables.pollux, catalog) } : {}),
  ...(tables.blox ? { blox: new BloxIndex(tables.blox, catalog) } : {}),
});

/** Every consolidated single-GPU measurement (Gavel and Pollux), for calibration. */
export const singleGpuPoints = (indexes: MeasuredIndexes): SingleGpuPoint[] => [
  ...(indexes.gavel?.singleGpuPoints() ?? []),
  ...(indexes.pollux?.singleGpuPoints() ?? []),
];

export interface MeasuredOptions {
  readonly catalog?: PerfCatalog;
  /**
   * Communication model used to carry single-GPU measurements to placements nobody measured (and rack-level
   * measurements to the network level). Without it, only exact measurements answer.
   */
  readonly comm?: AnalyticPerfModel;
}

/**
 * The table model: answers from Gavel's and Pollux's measurements. `measured` = a measurement of this
 * (model, batch, GPU type, GPU count, placement); `analytic` = a measured single-GPU (or rack-level) step time
 * plus modelled communication. `tryThroughput` returns undefined when the tables do not cover the query.
 */
export class MeasuredPerfModel implements PerfModel {
  readonly name = 'measured';
  readonly catalog: PerfCatalog;
  readonly gavel?: GavelIndex;
  readonly pollux?: PolluxIndex;
  readonly blox?: BloxIndex;
  readonly pairs: MeasuredColocation;
  private readonly comm: AnalyticPerfModel | undefined;
  private readonly estimates = new Memo<ThroughputEstimate | null>();
  private readonly colocations = new Memo<ColocationEstimate | null>();

  /** Tables are indexed with the options' catalog; pass indexes built by `indexMeasuredTables` to share them. */
  constructor(tables: MeasuredTables | MeasuredIndexes, options: MeasuredOptions = {}) {
    this.catalog = options.catalog ?? DEFAULT_PERF_CATALOG;
    const indexes = isIndexes(tables) ? tables : indexMeasuredTables(tables, this.catalog);
    if (indexes.gavel) this.gavel = indexes.gavel;
    if (indexes.pollux) this.pollux = indexes.pollux;
    if (indexes.blox) this.blox = indexes.blox;
    this.pairs = new MeasuredColocation(this.gavel, this.blox);
    this.comm = options.comm;
  }

  throughput(query: ThroughputQuery): ThroughputEstimate {
    const estimate = this.tryThroughput(query);
    if (!estimate) throw new RangeError(`${describe(query)}: no measured data covers this query`);
    return estimate;
  }

  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    const estimate = this.tryColocation(gpuType, gpus, a, b);
    if (!estimate) {
      throw new RangeError(
        `co-location of ${a.model} (batch ${a.batchSize}) and ${b.model} (batch ${b.batchSize}) on ${gpus} × ${gpuType}: no measured pair`,
      );
    }
    return estimate;
  }

  tryThroughput(query: ThroughputQuery): ThroughputEstimate | undefined {
    const hit = this.estimates.get(throughputKey(query), () => {
      if (query.partner) {
        const alone = this.tryThroughput({ ...query, partner: undefined });
        const co = this.tryColocation(query.gpuType, query.gpus, query, query.partner);
        return alone && co ? packedEstimate(alone, co) : null;
      }
      const r = resolveQuery(this.catalog, query);
      return this.fromGavel(r, query) ?? this.fromPollux(r, query) ?? null;
    });
    return hit ?? undefined;
  }

  /** A co-location measured on this GPU type and count, or undefined. */
  tryColocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate | undefined {
    const hit = this.colocations.get(colocationKey(gpuType, gpus, a, b), () => {
      const context = `co-location on ${gpus} × ${gpuType}`;
      const type = this.catalog.gpu(gpuType).id;
      const x = resolveModelRef(this.catalog, a, context);
      const y = resolveModelRef(this.catalog, b, context);
      return (
        this.pairs.exact(
          type,
          gpus,
          { model: x.profile.id, batchSize: x.batchSize },
          { model: y.profile.id, batchSize: y.batchSize },
        ) ?? null
      );
    });
    return hit ?? undefined;
  }

  private fromGavel(r: ResolvedQuery, query: ThroughputQuery): ThroughputEstimate | undefined {
    const gavel = this.gavel;
    const type = r.gpu.id;
    if (!gavel?.covers(type, r.profile.id)) return undefined;
    const local = r.batchSize / r.gpus;
    if (!Number.isInteger(local)) return undefined;
    const single = gavel.isolated(type, true, r.profile.id, local, 1);
    const singleSeconds = single ? 1 / single : undefined;
    const shapes: MeasuredShape[] = [];
    for (const scale of gavel.scales(type, r.profile.id, local)) {
      const consolidated = gavel.isolated(type, true, r.profile.id, local, scale);
      if (consolidated) {
        shapes.push({
          gpus: scale,
          level: 'machine',
          hosts: 1,
          estimate: measured(consolidated / scale, singleSeconds),
        });
      }
      // Gavel's unconsolidated runs put each worker on its own server.
      const spread = scale > 1 ? gavel.isolated(type, false, r.profile.id, local, scale) : undefined;
      if (spread) {
        shapes.push({
          gpus: scale,
          level: 'rack',
          hosts: scale,
          estimate: measured(spread / scale, singleSeconds),
        });
      }
    }
    return this.fromShapes(r, query, shapes);
  }

  private fromPollux(r: ResolvedQuery, query: ThroughputQuery): ThroughputEstimate | undefined {
    const pollux = this.pollux;
    if (!pollux || r.gpu.id !== pollux.gpuType || !pollux.hasModel(r.profile.id)) return undefined;
    const local = r.batchSize / r.gpus;
    const shapes: MeasuredShape[] = [];
    for (const { gpus, hosts, perNode } of pollux.evenShapes(r.profile.id)) {
      const step = pollux.step(r.profile.id, perNode, local);
      if (!step) continue;
      shapes.push({
        gpus,
        level: hosts === 1 ? 'machine' : 'rack',
        hosts,
        estimate: {
          iterationsPerSecond: 1 / step.stepTime,
          computeSeconds: step.stepTime - step.syncTime,
          commSeconds: step.syncTime,
          source: 'measured',
        },
      });
    }
    return this.fromShapes(r, query, shapes);
  }

  /**
   * The measurement of this very placement (`measured`), else the nearest measured placement of the same
   * per-GPU batch — closest GPU count, then closest GPUs per host, then fewer hosts — with the communication
   * the model adds or removes between the two placements (`analytic`). The single-GPU measurement is always
   * a candidate, so a job nobody measured on several GPUs gets measured compute plus modelled communication.
   * Pollux's multi-node runs (one AWS placement group) and Gavel's unconsolidated runs count as rack level.
   */
  private fromShapes(
    r: ResolvedQuery,
    query: ThroughputQuery,
    shapes: readonly MeasuredShape[],
  ): ThroughputEstimate | undefined {
    const perHost = r.gpus / r.hosts;
    const distance = (s: MeasuredShape): [number, number, number] => [
      Math.abs(Math.log2(s.gpus / r.gpus)),
      Math.abs(Math.log2(s.gpus / s.hosts / perHost)),
      s.hosts,
    ];
    let nearest: MeasuredShape | undefined;
    let best: [number, number, number] | undefined;
    for (const shape of shapes) {
      if (shape.gpus === r.gpus && shape.hosts === r.hosts && shape.level === r.level) return shape.estimate;
      const d = distance(shape);
      if (!best || lexicographicLess(d, best)) {
        nearest = shape;
        best = d;
      }
    }
    if (!nearest || !this.comm) return undefined;
    const { estimate } = nearest;
    const there = this.comm.dataParallelCommSeconds(
      {
        ...query,
        gpus: nearest.gpus,
        batchSize: (r.batchSize / r.gpus) * nearest.gpus,
        shape: { level: nearest.level, hosts: nearest.hosts },
      },
      estimate.computeSeconds,
    );
    const here = this.comm.dataParallelCommSeconds(query, estimate.computeSeconds);
    const commSeconds = Math.max(0, estimate.commSeconds + here - there);
    return {
      iterationsPerSecond: 1 / (estimate.computeSeconds + commSeconds),
      computeSeconds: estimate.computeSeconds,
      commSeconds,
      source: 'analytic',
    };
  }
}

/** A measured placement with the queried job's per-GPU batch. */
interface MeasuredShape {
  readonly gpus: number;
  readonly level: Level;
  readonly hosts: number;
  readonly estimate: ThroughputEstimate;
}

const lexicographicLess = (a: readonly number[], b: readonly number[]): boolean => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
};

const isIndexes = (t: MeasuredTables | MeasuredIndexes): t is MeasuredIndexes =>
  t.gavel instanceof GavelIndex ||
  t.pollux instanceof PolluxIndex ||
  t.blox instanceof BloxIndex ||
  (t.gavel === undefined && t.pollux === undefined && t.blox === undefined);

/** Global iterations per second measured for the whole job, split against the measured single-GPU step. */
const measured = (iterationsPerSecond: number, singleSeconds: number | undefined): ThroughputEstimate => {
  const iterationSeconds = 1 / iterationsPerSecond;
  const computeSeconds = Math.min(singleSeconds ?? iterationSeconds, iterationSeconds);
  return {
    iterationsPerSecond,
    computeSeconds,
    commSeconds: iterationSeconds - computeSeconds,
    source: 'measured',
  };
};

const describe = (q: ThroughputQuery): string =>
  `throughput of ${q.model} (batch ${q.batchSize}) on ${q.gpus} × ${q.gpuType} [${q.shape.level}, ${q.shape.hosts} host(s)]`;
