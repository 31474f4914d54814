import type { PerfCatalog } from './query.ts';
import { BLOX_GPU_TYPE } from './sources.ts';
import type { BloxBatch, BloxColocationTable, BloxRecord } from './tables.ts';

/** A co-location operand: catalog model id and global batch size. */
export interface PairJob {
  readonly model: string;
  readonly batchSize: number;
}

export interface BloxPair {
  readonly normalized: readonly [number, number];
  /** The pipeline split that gave the best pair (`10,14`), when the pipelined job had one. */
  readonly strategy?: string;
}

interface Row {
  readonly model1: string;
  readonly model2: string;
  readonly record: BloxRecord;
}

/**
 * Blox co-location speeds indexed by catalog ids. A batch written `N` is the per-GPU batch of a data-parallel
 * job (global = N × GPUs); `N/M` is a pipelined job's global batch N with micro-batch M.
 */
export class BloxIndex {
  readonly gpuType = BLOX_GPU_TYPE;
  readonly unknownModels: readonly string[];
  private readonly rows: readonly Row[];

  constructor(table: BloxColocationTable, catalog: PerfCatalog) {
    const unknown = new Set<string>();
    const id = (name: string): string | undefined => {
      try {
        return catalog.model(name).id;
      } catch {
        unknown.add(name);
        return undefined;
      }
    };
    const rows: Row[] = [];
    for (const record of table.records) {
      if (record.model2 === undefined) continue;
      const model1 = id(record.model1);
      const model2 = id(record.model2);
      if (model1 && model2) rows.push({ model1, model2, record });
    }
    this.rows = rows;
    this.unknownModels = [...unknown];
  }

  /**
   * Normalised speeds of `a` and `b` sharing `gpus` GPUs. Several rows (pipeline strategies) may match: the
   * best sum wins, as Tesserae weighs a pair by its best strategy. All-zero rows mean out of memory → [0, 0].
   * Rows written with the jobs the other way round are used, swapped, when no row has them in this order.
   */
  pair(a: PairJob, b: PairJob, gpus: number): BloxPair | undefined {
    const matches = (row: Row, x: PairJob, y: PairJob): boolean =>
      row.model1 === x.model &&
      row.model2 === y.model &&
      row.record.gpus1 === gpus &&
      row.record.gpus2 === gpus &&
      batchMatches(row.record.batch1, x.batchSize, gpus) &&
      row.record.batch2 !== undefined &&
      batchMatches(row.record.batch2, y.batchSize, gpus);
    let swapped = false;
    let candidates = this.rows.filter((row) => matches(row, a, b));
    if (candidates.length === 0) {
      candidates = this.rows.filter((row) => matches(row, b, a));
      swapped = true;
    }
    if (candidates.length === 0) return undefined;
    let best: BloxRecord | undefined;
    for (const { record } of candidates) {
      if (record.speed1 <= 0 || record.speed2 <= 0) continue;
      if (!best || record.speed1 + record.speed2 > best.speed1 + best.speed2) best = record;
    }
    if (!best) return { normalized: [0, 0] };
    const normalized: readonly [number, number] = swapped
      ? [best.speed2, best.speed1]
      : [best.speed1, best.speed2];
    return best.pipelineStrategy ? { normalized, strategy: best.pipelineStrategy } : { normalized };
  }
}

const batchMatches = (batch: BloxBatch, globalBatch: number, gpus: number): boolean =>
  batch.microBatch !== undefined ? batch.size === globalBatch : batch.size * gpus === globalBatch;
