import type { CellCalibrationState } from '../plugins/crius/state.ts';
import type { DelayTunerState } from '../plugins/dally/state.ts';
import type { ElasticMemory } from '../plugins/easyscale/memory.ts';
import type { TriedCells, TypeTrialState } from '../plugins/tessera/state.ts';

/**
 * What the scheduler carries from one round to the next (DynamoDB SchedulerState on AWS, memory in the simulator).
 * Stages that learn over time (Dally's auto-tuner, Crius calibration) have their own fields, each typed in its
 * plugin's state file (lib/core/plugins/dally/state.ts, lib/core/plugins/crius/state.ts), and set them through
 * `schedulerStateWith` (every field present, undefined until set).
 */
export interface SchedulerState {
  readonly round: number;
  readonly lastRoundAt?: number;
  /** Dally's auto-tuner history (lib/core/plugins/dally/auto-tuner.ts). */
  readonly delayTuner?: DelayTunerState;
  /** EasyScale's intra-job schedulers: scale-outs on trial and those measured slower (lib/core/plugins/easyscale/memory.ts). */
  readonly elastic?: ElasticMemory;
  /** Crius calibration of Cell estimates from observed throughput (lib/core/plugins/crius/calibration.ts). */
  readonly cellCalibration?: CellCalibrationState;
  /** Tessera's open trials of long jobs on GPU types their model never ran on (lib/core/plugins/tessera/type-trials.ts). */
  readonly typeTrials?: TypeTrialState;
  /** Cells tessera's long jobs have run on or tried below the scale-up margin (lib/core/plugins/tessera/type-trials.ts). */
  readonly triedCells?: TriedCells;
}

/**
 * `state` with `changes` applied (a field given as undefined is cleared), every field present in declaration order.
 * Stages update the state through here rather than by spreads: states whose fields were added in another order, or
 * copied by a spread in code that sees several shapes, each had a hidden class of their own, and every stage reading
 * `ctx.state` (Crius's calibration, Dally's tuner, the simulator) was compiled again when a policy's states reached it.
 */
export const schedulerStateWith = (
  state: SchedulerState,
  changes: Partial<SchedulerState>,
): SchedulerState => ({
  round: changes.round ?? state.round,
  lastRoundAt: 'lastRoundAt' in changes ? changes.lastRoundAt : state.lastRoundAt,
  delayTuner: 'delayTuner' in changes ? changes.delayTuner : state.delayTuner,
  elastic: 'elastic' in changes ? changes.elastic : state.elastic,
  cellCalibration: 'cellCalibration' in changes ? changes.cellCalibration : state.cellCalibration,
  typeTrials: 'typeTrials' in changes ? changes.typeTrials : state.typeTrials,
  triedCells: 'triedCells' in changes ? changes.triedCells : state.triedCells,
});

export const initialSchedulerState = (): SchedulerState => schedulerStateWith({ round: 0 }, {});
