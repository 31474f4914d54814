import type { ThroughputQuery } from '../../lib/core/model/perf.ts';
import type { Level } from '../../lib/core/model/topology.ts';

/** A throughput query in one line: model, global batch, GPU type, GPU count, level and host count. */
export const query = (
  model: string,
  batchSize: number,
  gpuType: string,
  gpus: number,
  level: Level = 'machine',
  hosts = 1,
): ThroughputQuery => ({ model, batchSize, gpuType, gpus, shape: { level, hosts } });
