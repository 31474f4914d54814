import type { SchedulerState } from '../model/state.ts';
import type { RoundContext } from './stages.ts';

/**
 * The round's context with another scheduler state (what a learning stage sees after the ones before it), with the
 * fields `roundContext` gives, in its order. A spread (`{ ...ctx, state }`) gives its copy a hidden class of its own,
 * and the stages reading it (Dally's accepted waits, Crius's calibration) were compiled again in tessera's first
 * rounds ('wrong map'); here every context a stage sees has one shape. Same fields, same values.
 */
export const contextWithState = (ctx: RoundContext, state: SchedulerState): RoundContext => ({
  now: ctx.now,
  cluster: ctx.cluster,
  perf: ctx.perf,
  config: ctx.config,
  state,
  hostOf: ctx.hostOf,
  capacity: ctx.capacity,
  scratch: ctx.scratch,
  memo: ctx.memo,
});
