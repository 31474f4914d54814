/**
 * Items of the SchedulerState table (key `key`): the round lease and the state carried between rounds.
 * The core's SchedulerState is stored as JSON text: stages add their own fields (auto-tuner history,
 * calibration), and text keeps them exactly as the core wrote them.
 */
import { z } from 'zod';
import { epochSeconds } from './epoch-seconds.ts';

export const LEASE_KEY = 'round-lease';
export const STATE_KEY = 'scheduler-state';

export const leaseItemSchema = z.object({
  key: z.literal(LEASE_KEY),
  holder: z.string(),
  /**
   * Epoch seconds after which another round may take the lease. Not `expiresAt`: that is the table's TTL attribute,
   * and DynamoDB deleting an expired lease would restart its fencing token. A lease item from before the upgrade has
   * only `expiresAt` (epoch ms, which TTL never reaches): it counts as expired, and the next acquisition removes it.
   */
  heldUntil: z.number(),
  /** Epoch seconds. */
  acquiredAt: epochSeconds(),
  /** Fencing token: grows with every acquisition, checked by every write of the holder. */
  token: z.int().positive(),
});
export type LeaseItem = z.infer<typeof leaseItemSchema>;

export const stateItemSchema = z.object({
  key: z.literal(STATE_KEY),
  round: z.int().nonnegative(),
  /** Epoch seconds (the core's clock) of the latest round, and of the latest write. */
  lastRoundAt: z.number().optional(),
  /** JSON of the core SchedulerState. */
  state: z.string(),
  lastStats: z.record(z.string(), z.unknown()).optional(),
  updatedAt: epochSeconds(),
});
export type StateItem = z.infer<typeof stateItemSchema>;
