import { isHolding } from '../../framework/compare.ts';
import { levelOf } from '../../framework/free-gpus.ts';
import type { RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { allocationGpuCount, type Plan } from '../../model/plan.ts';
import { type SchedulerState, schedulerStateWith } from '../../model/state.ts';
import { type AutoTunerOptions, pruneTuner, recordWait } from './auto-tuner.ts';

/**
 * The auto-tuner's input: how long each job that started this round on one machine or one rack had waited, per
 * (level, GPUs). Network-level starts are not recorded (nobody waits for them).
 */
export const recordAcceptedWaits = (
  ordered: readonly JobState[],
  plan: Plan,
  ctx: RoundContext,
  tuner: AutoTunerOptions,
): SchedulerState => {
  let state = pruneTuner(ctx.state.delayTuner, ctx.now, tuner);
  for (const job of ordered) {
    if (isHolding(job)) continue;
    const allocation = plan.get(job.spec.id);
    if (!allocation) continue;
    const level = levelOf(allocation, ctx.hostOf);
    if (level === 'network') continue;
    state = recordWait(
      state,
      level,
      allocationGpuCount(allocation),
      ctx.now - job.waitingSince,
      ctx.now,
      tuner,
    );
  }
  return schedulerStateWith(ctx.state, { delayTuner: state });
};
