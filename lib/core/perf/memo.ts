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
