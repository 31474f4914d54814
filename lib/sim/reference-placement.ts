import type { PlacementShape, ThroughputQuery } from '../core/model/perf.ts';

/**
 * GPUs per host assumed when a trace's source states none (a user's own CSV or jobs file): the common 8-GPU server.
 * `tessera sim --reference-host-gpus` overrides it and any source's own figure.
 */
export const DEFAULT_REFERENCE_HOST_GPUS = 8;

/** The hardware a trace's run times were recorded on: a GPU type, on hosts of `hostGpus` GPUs. */
export interface ReferenceHardware {
  readonly gpuType: string;
  readonly hostGpus: number;
}

/** A job consolidated on the fewest reference hosts: one machine when it fits there, else ⌈gpus ÷ host⌉ in a rack. */
export const referenceShape = (gpus: number, hostGpus: number): PlacementShape =>
  gpus <= hostGpus ? { level: 'machine', hosts: 1 } : { level: 'rack', hosts: Math.ceil(gpus / hostGpus) };

/**
 * The reference placement of a job: its requested GPUs of the reference type, on the fewest reference hosts — where
 * a trace's run time was recorded, so the job alone there takes that time (lib/sim/workload.ts) and needs that many
 * GPU-seconds (lib/sim/offered-load.ts).
 */
export const referenceQuery = (
  job: { readonly model: string; readonly batchSize: number; readonly gpus: number },
  reference: ReferenceHardware,
): ThroughputQuery => ({
  model: job.model,
  batchSize: job.batchSize,
  gpuType: reference.gpuType,
  gpus: job.gpus,
  shape: referenceShape(job.gpus, reference.hostGpus),
});

/** A positive whole number of GPUs per host, or an error naming where it came from. */
export const checkHostGpus = (hostGpus: number, what: string): number => {
  if (!(Number.isInteger(hostGpus) && hostGpus > 0))
    throw new Error(`${what} must be a positive whole number of GPUs per host, got ${hostGpus}`);
  return hostGpus;
};
