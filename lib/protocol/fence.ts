/**
 * Fencing (pure): the terms on which a host agent stops its workers by itself when it has lost contact with the
 * control plane, so that a job never runs on a partitioned host and on the host it was moved to at once.
 *
 * The control plane declares a host lost when it has applied no heartbeat of it for `heartbeatTimeoutSeconds`, and
 * only then requeues its jobs. It derives these terms from that same timeout and writes them into every desired
 * state it sends, so the two cannot drift: the agent fences after `afterSeconds` without contact and kills what has
 * not checkpointed and exited `graceSeconds` later — both done a `marginSeconds` (clock skew, the agent's tick,
 * process reaping) before the control plane can declare the host lost.
 */
import { z } from 'zod';

export const fenceTermsSchema = z.object({
  /** Out of contact this long (seconds), the agent stops every worker: SIGUSR2 (checkpoint and exit). */
  afterSeconds: z.number().positive(),
  /** Then waits this long (seconds) for them to exit before it kills them (SIGKILL). */
  graceSeconds: z.number().nonnegative(),
});

export type FenceTerms = z.infer<typeof fenceTermsSchema>;

/** Share of the timeout each of the grace and the margin take, and their cap in seconds. */
const SHARE = 0.1;
const CAP_SECONDS = 30;

/**
 * The terms for a control plane that declares hosts lost after `heartbeatTimeoutSeconds`: grace and margin a tenth
 * of the timeout each (at most 30 s), so afterSeconds + graceSeconds + marginSeconds = the timeout. With the default
 * 300 s: fence after 240 s, kill at 270 s, 30 s to spare.
 */
export const fenceTermsFor = (heartbeatTimeoutSeconds: number): FenceTerms => {
  const part = Math.min(CAP_SECONDS, heartbeatTimeoutSeconds * SHARE);
  return { afterSeconds: heartbeatTimeoutSeconds - 2 * part, graceSeconds: part };
};
