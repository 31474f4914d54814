/**
 * Who sent a telemetry message. SQS stamps every message with the sender's identity (`SenderId`): for a role
 * session it is `<role id>:<session name>` (`AROAEXAMPLEID:i-0123456789abcdef0`), and EC2 names the session of
 * an instance profile's role after the instance. So the session name is the one host a message may speak for;
 * a report claiming another host is a forgery (or a bug) and is rejected, never applied.
 */

/** Role ids start with AROA; the session name is 2-64 characters of [\w+=,.@-]. */
const ROLE_SESSION = /^AROA[A-Z0-9]+:([\w+=,.@-]{2,64})$/;

/** The host a sender identity speaks for, or undefined if it is not a role session (a user, an account). */
export const senderHostId = (senderId: string | undefined): string | undefined =>
  senderId === undefined ? undefined : ROLE_SESSION.exec(senderId)?.[1];

/** Why a message with this sender may not speak for `hostId`, or undefined when it may. */
export const senderMismatch = (senderId: string | undefined, hostId: string): string | undefined => {
  const sender = senderHostId(senderId);
  if (sender === undefined)
    return `sender "${senderId ?? ''}" is not a host's role session; telemetry must come from the host's instance role`;
  if (sender !== hostId) return `sender ${sender} may not report for host ${hostId}`;
  return undefined;
};

/** A claim the sender's own host may not make (e.g. the end of a job placed on other hosts). */
export class RejectedClaimError extends Error {
  override readonly name = 'RejectedClaimError';
}
