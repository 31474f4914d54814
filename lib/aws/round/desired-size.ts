/**
 * Keeps every host's desired state within one DynamoDB item (pure). A host item holds the document, its copy is
 * a second item; DynamoDB refuses items over 400 KB and a round that tried would fail for everyone. Submit-time
 * limits (lib/protocol/job-spec.ts, MAX_LAUNCH_BYTES) make this unreachable for new jobs; for anything that still
 * does not fit (older jobs, many jobs on one host) the jobs with the largest launch settings are taken off the
 * host, and the round fails them with the reason, alone.
 */
import type { DesiredJob } from '../../protocol/desired-state.ts';

/** Room for the document in a 400 KB item, leaving space for the host's other attributes. */
export const MAX_DESIRED_BYTES = 300_000;

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

export interface Eviction {
  readonly jobId: string;
  readonly reason: string;
}

/** Jobs to take off over-full hosts (largest launch first), and what each host keeps. */
export const fitDesiredStates = (
  byHost: ReadonlyMap<string, readonly DesiredJob[]>,
  limit = MAX_DESIRED_BYTES,
): Eviction[] => {
  const evicted = new Map<string, string>();
  for (const [hostId, jobs] of byHost) {
    let size = bytesOf(jobs);
    if (size <= limit) continue;
    for (const job of [...jobs].sort((a, b) => bytesOf(b) - bytesOf(a) || (a.jobId < b.jobId ? -1 : 1))) {
      if (size <= limit) break;
      size -= bytesOf(job);
      if (!evicted.has(job.jobId))
        evicted.set(
          job.jobId,
          `launch settings do not fit in host ${hostId}'s desired state (one DynamoDB item, at most ${limit} bytes for every job on the host)`,
        );
    }
  }
  return [...evicted].map(([jobId, reason]) => ({ jobId, reason }));
};
