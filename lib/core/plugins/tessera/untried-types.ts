import { allowedTypes } from '../../framework/estimates.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobSpec } from '../../model/job.ts';
import { efficiencyKey } from '../crius/calibration.ts';

/** The GPU types a job may use that its model never ran on, in `allowedTypes`' order. */
export type UntriedTypes = (spec: JobSpec) => readonly GpuTypeId[];

/**
 * `UntriedTypes` for one round: a type is untried while the calibration has no learned efficiency of the model there
 * (`type-trials.ts`). Type trials ask it of every long running job every round nobody waits, and the answer depends
 * only on the model, the job's allowed types and the round's calibration: made once per model and allowed-type list,
 * for this context only (a later round's calibration may know more types).
 */
export const untriedTypesOf = (ctx: RoundContext): UntriedTypes => {
  const efficiency = ctx.state.cellCalibration?.efficiency;
  const untried = (spec: JobSpec): readonly GpuTypeId[] =>
    allowedTypes(spec, ctx).filter((t) => efficiency?.[efficiencyKey(spec.model, t)] === undefined);
  // model → allowed-type list → untried types, for jobs restricted to some types.
  const known = new Map<string, Map<string, readonly GpuTypeId[]>>();
  // Most jobs may use any type present: one lookup by model.
  const anyType = new Map<string, readonly GpuTypeId[]>();
  return (spec) => {
    if (!spec.gpuTypes || spec.gpuTypes.length === 0) {
      let types = anyType.get(spec.model);
      if (!types) {
        types = untried(spec);
        anyType.set(spec.model, types);
      }
      return types;
    }
    let byAllowed = known.get(spec.model);
    if (!byAllowed) {
      byAllowed = new Map();
      known.set(spec.model, byAllowed);
    }
    const allowedKey = spec.gpuTypes.join(',');
    let types = byAllowed.get(allowedKey);
    if (!types) {
      types = untried(spec);
      byAllowed.set(allowedKey, types);
    }
    return types;
  };
};
