/**
 * A host declared lost or terminated outside a desired-state write (its instance vanished, the fleet terminated it,
 * EC2 reported it stopped or terminated) loses its job-data credentials from its desired-state copy at once; a
 * failure is logged and left to the credentials' 15-minute expiry, never failing the caller.
 */
import type { HostsRepository } from '../repositories/hosts-repository.ts';

export const revokeOnLoss = async (
  hosts: Pick<HostsRepository, 'revokeDataCredentials'>,
  hostIds: readonly string[],
  warn: (message: string, details: Record<string, unknown>) => void,
): Promise<void> => {
  await Promise.all(
    hostIds.map((hostId) =>
      hosts.revokeDataCredentials(hostId).catch((error: unknown) =>
        warn('could not remove the job-data credentials of a lost host; they expire within 15 minutes', {
          hostId,
          error: String(error),
        }),
      ),
    ),
  );
};
