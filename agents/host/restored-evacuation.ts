/**
 * What a restarted agent keeps of the evacuation its predecessor recorded (pure). A shutdown evacuation belonged to
 * the process that was stopping: the new process was started to run work, and a reconciler with an open evacuation
 * starts nothing. An evacuation whose deadline has passed is over too (a Spot instance that is still here after its
 * deadline was not taken). Only a Spot evacuation still within its deadline goes on.
 */
import type { ReconcilerState } from './reconciler-state.ts';

export const withoutStaleEvacuation = (
  state: ReconcilerState,
  nowMs: number,
): { state: ReconcilerState; cleared: NonNullable<ReconcilerState['evacuation']> | null } => {
  const evacuation = state.evacuation;
  if (!evacuation || (evacuation.reason === 'spot' && evacuation.deadline > nowMs))
    return { state, cleared: null };
  return { state: { ...state, evacuation: null }, cleared: evacuation };
};
