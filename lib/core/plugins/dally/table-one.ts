import type { ModelProfile } from '../../catalog/models.ts';
import type { PerfModel, PlacementShape } from '../../model/perf.ts';
import { LEVELS, type Level } from '../../model/topology.ts';

/**
 * Dally's Table I: communication time as a share of compute time for 8-GPU data-parallel training on one machine
 * (NVSwitch), one rack (InfiniBand/Quantum) and across racks (Ethernet/Spectrum), simulated by ASTRA-sim. Shares,
 * not percentages (0.42 = 42 %).
 */
export const TABLE_I: Readonly<Record<string, Readonly<Record<Level, number>>>> = {
  vgg11: { machine: 0.01, rack: 0.06, network: 0.07 },
  alexnet: { machine: 0.02, rack: 0.13, network: 1.0 },
  mobilenetv3: { machine: 0.42, rack: 9.4, network: 195.92 },
  resnet18: { machine: 0.07, rack: 1.16, network: 27.49 },
  resnet50: { machine: 0.12, rack: 0.12, network: 0.38 },
  'bert-large': { machine: 0.08, rack: 0.23, network: 7.15 },
};

export const TABLE_I_MODELS: readonly string[] = Object.keys(TABLE_I);

/**
 * The placement Table I's ratios are fitted at: 8 GPUs of the Dally clusters' type with the model's default batch per
 * GPU; one machine, or two hosts of four GPUs in one rack / in two racks (the 8-GPU spread job of the paper's Fig. 2).
 */
export const TABLE_I_REFERENCE = {
  gpuType: 'A100-40GB',
  gpus: 8,
  shapes: {
    machine: { level: 'machine', hosts: 1 },
    rack: { level: 'rack', hosts: 2 },
    network: { level: 'network', hosts: 2 },
  } satisfies Record<Level, PlacementShape>,
} as const;

/** Exposed communication ÷ compute per iteration of a model at a Table I reference placement. */
export const commShare = (perf: PerfModel, profile: ModelProfile, level: Level): number => {
  const { gpuType, gpus, shapes } = TABLE_I_REFERENCE;
  const estimate = perf.throughput({
    model: profile.id,
    batchSize: profile.defaultBatchSize * gpus,
    gpuType,
    gpus,
    shape: shapes[level],
  });
  if (!(estimate.iterationsPerSecond > 0 && estimate.computeSeconds > 0)) {
    throw new RangeError(`Table I: ${profile.id} cannot run on ${gpus} × ${gpuType} at ${level} level`);
  }
  return estimate.commSeconds / estimate.computeSeconds;
};

/**
 * The `levelScale` that makes a model's share match Table I at each level. `perf` must be built with `overlap: 0`
 * (Dally's t_iter = t_compute + t_comm: all communication exposed) and `levelScale` 1 for these models, so that the
 * exposed communication is proportional to the scale being fitted.
 */
export const fitLevelScale = (
  perf: PerfModel,
  profile: ModelProfile,
  target: Readonly<Record<Level, number>>,
): Record<Level, number> => {
  const out = {} as Record<Level, number>;
  for (const level of LEVELS) {
    const raw = commShare(perf, profile, level);
    if (!(raw > 0))
      throw new RangeError(`Table I: ${profile.id} has no communication at ${level} level to scale`);
    out[level] = target[level] / raw;
  }
  return out;
};
