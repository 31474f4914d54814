/**
 * What the scheduler carries from one round to the next (DynamoDB SchedulerState on AWS, memory in the simulator).
 * Stages that learn over time (Dally's auto-tuner, Crius calibration) add their own typed fields.
 */
export interface SchedulerState {
  readonly round: number;
  readonly lastRoundAt?: number;
}

export const initialSchedulerState = (): SchedulerState => ({ round: 0 });
