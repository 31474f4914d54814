import { scratchKey } from '../framework/scratch.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import type { JobSpec } from '../model/job.ts';
import type { PlacementShape } from '../model/perf.ts';
import type { RoundContext, TypeCapacity } from '../stages.ts';

const PRESENT_TYPES = scratchKey<readonly GpuTypeId[]>('GPU types present, sorted');

/** GPU types of the cluster this job may use, in a stable order. */
export const allowedTypes = (spec: JobSpec, ctx: RoundContext): readonly GpuTypeId[] => {
  // Asked for every job several times a round: sorted once per round.
  const present = ctx.scratch.get(PRESENT_TYPES, () => [...ctx.capacity.keys()].sort());
  if (!spec.gpuTypes || spec.gpuTypes.length === 0) return present;
  const allowed = new Set(spec.gpuTypes);
  return present.filter((t) => allowed.has(t));
};

/** The best shape `gpus` GPUs of a type can have: one machine when they fit on one, else as few hosts of one rack. */
export const bestShape = (gpus: number, capacity: TypeCapacity | undefined): PlacementShape => {
  const hostSize = Math.max(1, capacity?.largestHost ?? 1);
  return gpus <= hostSize
    ? { level: 'machine', hosts: 1 }
    : { level: 'rack', hosts: Math.ceil(gpus / hostSize) };
};

/** Estimated iterations/s of the job alone on `gpus` GPUs of `type`, consolidated as well as the cluster allows. */
export const isolatedThroughput = (spec: JobSpec, type: GpuTypeId, gpus: number, ctx: RoundContext): number =>
  ctx.perf.throughput({
    model: spec.model,
    batchSize: spec.batchSize,
    gpuType: type,
    gpus,
    shape: bestShape(gpus, ctx.capacity.get(type)),
  }).iterationsPerSecond;

export const bestIsolatedThroughput = (spec: JobSpec, gpus: number, ctx: RoundContext): number => {
  let best = 0;
  for (const type of allowedTypes(spec, ctx))
    best = Math.max(best, isolatedThroughput(spec, type, gpus, ctx));
  return best;
};

/** Why a job can never run on this cluster, or undefined when some allowed type is large enough. */
export const unschedulableReason = (spec: JobSpec, ctx: RoundContext): string | undefined => {
  const types = allowedTypes(spec, ctx);
  if (types.length === 0) {
    const wanted = spec.gpuTypes?.join(', ') ?? 'any';
    return `no GPU of an allowed type (${wanted}) in cluster ${ctx.cluster.name}`;
  }
  const minGpus = spec.elastic ? Math.max(1, spec.elastic.minGpus) : spec.gpus;
  const largest = Math.max(...types.map((t) => ctx.capacity.get(t)?.gpus ?? 0));
  if (minGpus > largest) return `needs ${minGpus} GPUs of one type; the largest allowed type has ${largest}`;
  return undefined;
};
