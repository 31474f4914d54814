/**
 * Models outside the catalog in the round (pure): the round's performance model answers for them from their
 * declared profile or conservative estimate, calibrated with every throughput sample the Profiles table holds for
 * them; and each such job's item records where its model's figures come from and the throughput the round predicts
 * on its current placement, so `tessera job` can show estimated vs calibrated. Written only when they change.
 */
import type { JobSpec } from '../../core/model/job.ts';
import type { PerfModel } from '../../core/model/perf.ts';
import { allocationGpuCount } from '../../core/model/plan.ts';
import { type ModelMeasurement, UserModelPerfModel, userModelEntries } from '../../core/perf/user-models.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import type { JobItem, ModelEstimate } from '../items/job-item.ts';
import { meanIterationsPerSecond, type ProfileItem } from '../items/profile-item.ts';
import { withMeasuredProfiles } from './measured-profiles.ts';

export interface RoundPerf {
  /** What `scheduleRound` uses: user models, then measured profiles of exact placements on top. */
  readonly perf: PerfModel;
  /** The user-model layer, when some job names a model outside the catalog. */
  readonly userModels?: UserModelPerfModel;
}

/** Every solo profile as a measurement (user models calibrate from one sample: their prior is only a guess). */
export const measurementsOf = (profiles: readonly ProfileItem[]): ModelMeasurement[] =>
  profiles
    .filter((p) => !p.partner && p.samples > 0)
    .map((p) => ({
      model: p.model,
      batchSize: p.batchSize,
      gpuType: p.gpuType,
      gpus: p.gpus,
      level: p.level,
      hosts: p.hosts,
      iterationsPerSecond: meanIterationsPerSecond(p),
      samples: p.samples,
    }));

export const roundPerf = (
  base: PerfModel,
  specs: readonly JobSpec[],
  profiles: readonly ProfileItem[],
): RoundPerf => {
  const entries = userModelEntries(specs);
  if (entries.size === 0) return { perf: withMeasuredProfiles(base, profiles) };
  const userModels = new UserModelPerfModel(base, entries, { measurements: measurementsOf(profiles) });
  return { perf: withMeasuredProfiles(userModels, profiles), userModels };
};

/** Four significant digits: a prediction that moves by less is not worth a write. */
const rounded = (x: number): number => Number(x.toPrecision(4));

/** Where the job's model figures come from and what the round predicts on its placement (undefined: catalog model). */
export const modelEstimateOf = (item: JobItem, round: RoundPerf): ModelEstimate | undefined => {
  if (!item.spec.userModel || !round.userModels) return undefined;
  const status = round.userModels.statusOf(item.spec.model);
  if (status.basis === 'catalog') return undefined;
  const allocation = item.allocation;
  const holding =
    allocation && item.placementLevel && (item.status === 'running' || item.status === 'checkpointing');
  const predicted = holding
    ? round.perf.throughput({
        model: item.spec.model,
        batchSize: item.spec.batchSize,
        gpuType: allocation.gpuType,
        gpus: allocationGpuCount(allocation),
        shape: { level: item.placementLevel!, hosts: allocation.slices.length },
      }).iterationsPerSecond
    : undefined;
  return {
    basis: status.basis,
    ...(status.samples !== undefined ? { samples: status.samples } : {}),
    ...(status.computeScale !== undefined ? { computeScale: rounded(status.computeScale) } : {}),
    ...(predicted !== undefined && predicted > 0 ? { predictedThroughput: rounded(predicted) } : {}),
  };
};

const same = (a: ModelEstimate | undefined, b: ModelEstimate): boolean =>
  a !== undefined &&
  a.basis === b.basis &&
  a.samples === b.samples &&
  a.computeScale === b.computeScale &&
  a.predictedThroughput === b.predictedThroughput;

export interface ModelEstimateWrite {
  readonly jobId: string;
  readonly changes: ItemChanges;
}

export const modelEstimateWrites = (items: readonly JobItem[], round: RoundPerf): ModelEstimateWrite[] => {
  const writes: ModelEstimateWrite[] = [];
  for (const item of items) {
    const estimate = modelEstimateOf(item, round);
    if (estimate && !same(item.modelEstimate, estimate))
      writes.push({ jobId: item.jobId, changes: { set: { modelEstimate: estimate } } });
  }
  return writes;
};
