import type { CriusAllocateOptions } from './allocate.ts';

/**
 * The allocation stage's options with every field present, in one order (absent ones undefined): crius, its
 * ablations and tessera then pass objects of one shape through the same stage code. Options built by spreading
 * defaults and overrides differ in their fields (tessera adds `oneHostCount`, `reclaimFaster`, `scaleUpPays`, `scaleUpBeyondDepth`), so
 * the stage code V8 had compiled while crius ran was thrown away ("wrong map") and compiled again on tessera's
 * first rounds, in every process that runs both. Reading a field gives what the given options give.
 */
export const withEveryOption = (o: CriusAllocateOptions): CriusAllocateOptions => ({
  name: o.name,
  countScaling: o.countScaling,
  oneHostCount: o.oneHostCount,
  typeScaling: o.typeScaling,
  deadlines: o.deadlines,
  depth: o.depth,
  choiceBudget: o.choiceBudget,
  breadth: o.breadth,
  minScaleUpGain: o.minScaleUpGain,
  opportunistic: o.opportunistic,
  estimator: o.estimator,
  reclaimFaster: o.reclaimFaster,
  scaleUpPays: o.scaleUpPays,
  scaleUpBeyondDepth: o.scaleUpBeyondDepth,
});
