import { type GpuTypeEntry, getGpuType } from '../catalog/gpus.ts';
import { getModelProfile, type ModelProfile } from '../catalog/models.ts';
import type { ModelRef, PlacementShape, ThroughputQuery } from '../model/perf.ts';
import { LEVELS, type Level } from '../model/topology.ts';

/** Where a performance model looks up models and GPU types; the built-in catalog unless a caller adds profiles. */
export interface PerfCatalog {
  model(name: string): ModelProfile;
  gpu(idOrAlias: string): GpuTypeEntry;
}

export const DEFAULT_PERF_CATALOG: PerfCatalog = { model: getModelProfile, gpu: getGpuType };

/** A query with its names resolved and its numbers checked. */
export interface ResolvedQuery {
  readonly profile: ModelProfile;
  readonly gpu: GpuTypeEntry;
  /** Global batch size; the profile's default when the query gave 0. */
  readonly batchSize: number;
  readonly gpus: number;
  /** `machine` whenever all GPUs are on one host, whatever level the caller named. */
  readonly level: Level;
  readonly hosts: number;
}

const describe = (q: ThroughputQuery): string =>
  `${q.model} (batch ${q.batchSize}) on ${q.gpus} × ${q.gpuType} [${q.shape?.level}, ${q.shape?.hosts} host(s)]`;

/**
 * Global batch size of a model reference: the given one, or the model's default when it is 0 (traces that
 * record no batch size). Throws a RangeError for negative or non-finite sizes.
 */
export const effectiveBatchSize = (profile: ModelProfile, batchSize: number, context: string): number => {
  if (!(Number.isFinite(batchSize) && batchSize >= 0)) {
    throw new RangeError(
      `${context}: batchSize must be a number ≥ 0 (0 = the model's default), got ${batchSize}`,
    );
  }
  return batchSize === 0 ? profile.defaultBatchSize : batchSize;
};

/**
 * Resolves and checks a throughput query. A shape with one host is a machine-level placement (no traffic
 * leaves the host) even when the caller names a wider level; a machine-level shape over several hosts is a
 * contradiction and throws.
 */
export const resolveQuery = (catalog: PerfCatalog, q: ThroughputQuery): ResolvedQuery => {
  const context = `throughput query ${describe(q)}`;
  if (!(Number.isSafeInteger(q.gpus) && q.gpus >= 1)) {
    throw new RangeError(`${context}: gpus must be an integer ≥ 1, got ${q.gpus}`);
  }
  const shape = resolveShape(q.shape, q.gpus, context);
  const profile = catalog.model(q.model);
  const gpu = catalog.gpu(q.gpuType);
  return {
    profile,
    gpu,
    batchSize: effectiveBatchSize(profile, q.batchSize, context),
    gpus: q.gpus,
    ...shape,
  };
};

export const resolveShape = (
  shape: PlacementShape | undefined,
  gpus: number,
  context: string,
): { level: Level; hosts: number } => {
  if (!shape || !LEVELS.includes(shape.level)) {
    throw new RangeError(`${context}: shape.level must be one of ${LEVELS.join(', ')}, got ${shape?.level}`);
  }
  if (!(Number.isSafeInteger(shape.hosts) && shape.hosts >= 1 && shape.hosts <= gpus)) {
    throw new RangeError(
      `${context}: shape.hosts must be an integer in [1, gpus = ${gpus}], got ${shape.hosts}`,
    );
  }
  if (shape.hosts === 1) return { level: 'machine', hosts: 1 };
  if (shape.level === 'machine') {
    throw new RangeError(`${context}: a machine-level placement has one host, got ${shape.hosts}`);
  }
  return { level: shape.level, hosts: shape.hosts };
};

/** Resolves a co-location operand: its profile and effective global batch size. */
export const resolveModelRef = (
  catalog: PerfCatalog,
  ref: ModelRef,
  context: string,
): { profile: ModelProfile; batchSize: number } => {
  const profile = catalog.model(ref.model);
  return { profile, batchSize: effectiveBatchSize(profile, ref.batchSize, context) };
};

/** GPUs per host when `gpus` are spread as evenly as possible over `hosts`, largest first (`5` over 2 → `[3, 2]`). */
export const evenSpread = (gpus: number, hosts: number): number[] => {
  const base = Math.floor(gpus / hosts);
  const extra = gpus % hosts;
  return Array.from({ length: hosts }, (_, i) => base + (i < extra ? 1 : 0));
};
