/**
 * Every time a Tessera table stores is in seconds: epoch seconds for instants (decimals where sub-second order
 * matters, e.g. `changedAt`), seconds for durations; TTL attributes (`expiresAt`) are whole epoch seconds.
 *
 * Upgrade rule: stacks deployed before this rule stored some instants in epoch milliseconds (the job's
 * `submittedAt`, `updatedAt`, `lastProgressAt`, `changedAt`; the host's `stateChangedAt`, `launchedAt`,
 * `registeredAt`, `lastHeartbeatAt`, `idleSince`, …). A stored instant above `LEGACY_MS_THRESHOLD` (1e11: year 5138
 * in seconds, March 1973 in milliseconds) can only be milliseconds, so readers divide it by 1000. Item schemas read
 * instants through `epochSeconds`, so no code past the schema sees milliseconds; the next write of the item stores
 * seconds.
 */
import { z } from 'zod';

/** Above this a stored instant is epoch milliseconds from before the upgrade. */
export const LEGACY_MS_THRESHOLD = 1e11;

/** An instant as stored, in epoch seconds (a legacy millisecond value converted). */
export const toEpochSeconds = (stored: number): number =>
  stored > LEGACY_MS_THRESHOLD ? stored / 1000 : stored;

/** Schema of a stored instant: epoch seconds, legacy milliseconds converted on read. */
export const epochSeconds = () => z.number().transform(toEpochSeconds);

/** The wall clock of the control plane, in epoch seconds (with milliseconds as decimals). */
export const epochSecondsNow = (): number => Date.now() / 1000;
