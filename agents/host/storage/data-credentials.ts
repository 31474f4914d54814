/**
 * The job-data credentials the control plane vended to this host (see lib/protocol/data-credentials.ts), as last
 * read with the desired state. Each job's S3 requests are signed with the set that lists the job; a job no set
 * lists gets no job-data access at all (the instance role has none). A malformed attribute leaves the previous
 * sets in place: they stay valid until they expire.
 */
import { type DataCredentialSet, dataCredentialsSchema } from '../../../lib/protocol/data-credentials.ts';

export class HostDataCredentials {
  private sets: DataCredentialSet[] = [];

  /** Takes the `dataCredentials` attribute as read (absent = none: the host has no jobs). Returns whether it was valid. */
  update(raw: unknown): boolean {
    if (raw === undefined || raw === null) {
      this.sets = [];
      return true;
    }
    const parsed = dataCredentialsSchema.safeParse(raw);
    if (!parsed.success) return false;
    this.sets = parsed.data;
    return true;
  }

  /** The set to sign `jobId`'s requests with; of several, the one that lasts longest. */
  forJob(jobId: string): DataCredentialSet | undefined {
    return this.newest((s) => s.jobIds.includes(jobId));
  }

  /** The set for an object key or listing prefix: `jobs/<jobId>/…`, or a working directory a set lists. */
  forKey(key: string): DataCredentialSet | undefined {
    const job = /^jobs\/([^/]+)\//.exec(key)?.[1];
    if (job !== undefined) return this.forJob(job);
    return this.newest((s) => s.workdirKeys?.includes(key) ?? false);
  }

  /** Whether a current set has this access key (older ones were replaced by renewed credentials). */
  has(accessKeyId: string): boolean {
    return this.sets.some((s) => s.accessKeyId === accessKeyId);
  }

  private newest(matches: (set: DataCredentialSet) => boolean): DataCredentialSet | undefined {
    return this.sets.filter(matches).sort((a, b) => b.expiresAt - a.expiresAt)[0];
  }
}
