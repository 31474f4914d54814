import type { ModelRef, ThroughputQuery } from '../model/perf.ts';

// A separator no model or GPU name contains, so distinct queries never share a key.
const SEP = '\u0000';

/** Memo key of a throughput query (the names as given: equal queries hit the same entry without resolving). */
export const throughputKey = (q: ThroughputQuery): string => {
  const base = `${q.model}${SEP}${q.batchSize}${SEP}${q.gpuType}${SEP}${q.gpus}${SEP}${q.shape.level}${SEP}${q.shape.hosts}`;
  return q.partner ? `${base}${SEP}${q.partner.model}${SEP}${q.partner.batchSize}` : base;
};

export const colocationKey = (gpuType: string, gpus: number, a: ModelRef, b: ModelRef): string =>
  `${gpuType}${SEP}${gpus}${SEP}${a.model}${SEP}${a.batchSize}${SEP}${b.model}${SEP}${b.batchSize}`;

/**
 * Caches a pure function's results by key. Entries never expire: keys are (model, batch, type, count,
 * shape) tuples, of which a cluster has a bounded set, and the simulator asks for the same ones every round.
 */
export class Memo<V> {
  private readonly entries = new Map<string, V>();

  get(key: string, compute: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    this.entries.set(key, value);
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}

// GPU and host counts below this fit one numeric key: `gpus · COUNT_LIMIT + hosts` stays an exact integer.
const COUNT_LIMIT = 2 ** 20;

/**
 * A `Memo` of throughput queries without building a string per lookup: the perf model is asked the same queries
 * thousands of times a round, and hashing a fresh key string was most of each hit. Queries are looked up by their
 * parts (model → GPU type → level → batch size → GPU and host count); packed queries and counts that are not
 * small whole numbers fall back to the string key. Equal queries hit the same entry as `throughputKey` would.
 */
export class ThroughputMemo<V> {
  private readonly byModel = new Map<string, Map<string, Map<string, Map<number, Map<number, V>>>>>();
  private readonly others = new Memo<V>();

  get(q: ThroughputQuery, compute: () => V): V {
    const { gpus, shape } = q;
    if (q.partner || !isSmallCount(gpus) || !isSmallCount(shape.hosts)) {
      return this.others.get(throughputKey(q), compute);
    }
    const byType = child(this.byModel, q.model, () => new Map());
    const byLevel = child(byType, q.gpuType, () => new Map());
    const byBatch = child(byLevel, shape.level, () => new Map());
    const byCount = child(byBatch, q.batchSize, () => new Map());
    const key = gpus * COUNT_LIMIT + shape.hosts;
    if (byCount.has(key)) return byCount.get(key) as V;
    const value = compute();
    byCount.set(key, value);
    return value;
  }
}

/**
 * A `Memo` of co-location queries looked up by their parts (GPU type → count → each model and batch size), without
 * a key string per lookup: packing asks for the same pairs every round. Equal queries hit the same entry as
 * `colocationKey` would (numbers and their decimal strings correspond one to one, 0 and −0 alike).
 */
export class ColocationMemo<V> {
  private readonly byType = new Map<
    string,
    Map<number, Map<string, Map<number, Map<string, Map<number, V>>>>>
  >();

  get(gpuType: string, gpus: number, a: ModelRef, b: ModelRef, compute: () => V): V {
    const byCount = child(this.byType, gpuType, () => new Map());
    const byModelA = child(byCount, gpus, () => new Map());
    const byBatchA = child(byModelA, a.model, () => new Map());
    const byModelB = child(byBatchA, a.batchSize, () => new Map());
    const byBatchB = child(byModelB, b.model, () => new Map());
    const hit = byBatchB.get(b.batchSize);
    if (hit !== undefined) return hit;
    const value = compute();
    byBatchB.set(b.batchSize, value);
    return value;
  }
}

const isSmallCount = (n: number): boolean => Number.isInteger(n) && n >= 0 && n < COUNT_LIMIT;

const child = <K, C>(map: Map<K, C>, key: K, make: () => C): C => {
  let next = map.get(key);
  if (next === undefined) {
    next = make();
    map.set(key, next);
  }
  return next;
};
