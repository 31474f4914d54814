/**
 * Items of the SchedulerState table (key `key`): the round lease and the state carried between rounds.
 * The core's SchedulerState is stored as JSON text: stages add their own fields (auto-tuner history,
 * calibration), and text keeps them exactly as the core wrote them.
 */
import { z } from 'zod';

export const LEASE_KEY = 'round-lease';
export const STATE_KEY = 'scheduler-state';

export const leaseItemSchema = z.object({
  key: z.literal(LEASE_KEY),
  holder: z.string(),
  /** Epoch ms after which another round may take the lease. */
  expiresAt: z.number(),
  acquiredAt: z.number(),
  /** Fencing token: grows with every acquisition, checked by every write of the holder. */
  token: z.int().positive(),
});
export type LeaseItem = z.infer<typeof leaseItemSchema>;

export const stateItemSchema = z.object({
  key: z.literal(STATE_KEY),
  round: z.int().nonnegative(),
  lastRoundAt: z.number().optional(),
  /** JSON of the core SchedulerState. */
  state: z.string(),
  lastStats: z.record(z.string(), z.unknown()).optional(),
  updatedAt: z.number(),
});
export type StateItem = z.infer<typeof stateItemSchema>;
