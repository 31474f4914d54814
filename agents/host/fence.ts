/**
 * The agent's fencing rule (pure; times in seconds of the agent's clock). Contact with the control plane is proven
 * twice over, and the older proof counts:
 * - telemetry: SQS accepted a batch holding a heartbeat or a registration — the control plane stamps the host's
 *   `lastHeartbeatAt` when it applies that batch, which is after the send began, so the control plane never sees
 *   the host silent for longer than the agent does;
 * - the desired state: a read of it succeeded — only so does the agent learn that its jobs moved or it was told to
 *   stop.
 * Each proof is dated when its request began (a request that succeeds late proves nothing newer than its start).
 * Out of contact longer than the terms' `afterSeconds`, the agent is fenced: it stops every worker and starts
 * nothing until it accepts a desired state of a generation newer than the one it had when it fenced itself (the
 * control plane writes one when it requeues the fenced jobs or gives the host up).
 */
import type { FenceTerms } from '../../lib/protocol/fence.ts';

export interface Contact {
  /** When the newest send that delivered a heartbeat or registration began. */
  readonly telemetryAt: number;
  /** When the newest successful desired-state read began. */
  readonly desiredStateAt: number;
}

export type ContactKind = keyof Contact;

/** Seconds since the older of the two proofs of contact. */
export const secondsOutOfContact = (contact: Contact, now: number): number =>
  now - Math.min(contact.telemetryAt, contact.desiredStateAt);

/** Whether an agent not yet fenced must fence itself now. No terms (none received yet): never. */
export const mustFence = (terms: FenceTerms | null, contact: Contact, now: number): boolean =>
  terms !== null && secondsOutOfContact(contact, now) > terms.afterSeconds;

/** Whether a desired state of `generation` lifts a fence taken at `fencedAtGeneration`. */
export const liftsFence = (fencedAtGeneration: number | null, generation: number): boolean =>
  fencedAtGeneration === null || generation > fencedAtGeneration;

/** A newer proof of contact of one kind; proofs never go back in time. */
export const withContact = (contact: Contact, kind: ContactKind, at: number): Contact =>
  at > contact[kind] ? { ...contact, [kind]: at } : contact;
