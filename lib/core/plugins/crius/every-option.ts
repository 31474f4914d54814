import type { CriusAllocateOptions } from './allocate.ts';

/**
 * The allocation stage's options with every field present, in one order (absent ones undefined): crius, its
 * ablations and tessera then pass objects of one shape through the same stage code. Options built by spreading
 * defaults and overrides differ in their fields (tessera adds `oneHostCount`, `reclaimFaster`, `scaleUpPays`,
 * `scaleUpBeyondDepth`, `scaleUpMargin`), so
 * the stage code V8 had compiled while crius ran was thrown away ("wrong map") and compiled again on tessera's
 * first rounds, in every process that runs both. Reading a field gives what the given options give (an absent scale-up
 * rule reads as one under which every scale-up pays, which the search treats as no rule).
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
  scaleUpPays: o.scaleUpPays ?? everyScaleUpPays,
  scaleUpBeyondDepth: o.scaleUpBeyondDepth,
  takePays: o.takePays,
  scaleUpMargin: o.scaleUpMargin,
  restoreAhead: o.restoreAhead,
});

/**
 * Without a scale-up rule every scale-up above the gain margin pays, as with none (the search's check passes): a rule
 * that is always there gives the two call sites (the rule made per round, asked per candidate Cell) feedback in
 * crius's runs too. Absent, they were first reached in tessera's run, after V8 had optimised the allocation and the
 * search without them ('insufficient type feedback for call'), and such a deopt does not discard the code: in one run
 * on batch:200@dally-8r the same optimised allocation was entered and bailed out again 48 times, once a round.
 */
const payAlways = (): boolean => true;
const everyScaleUpPays = () => payAlways;
