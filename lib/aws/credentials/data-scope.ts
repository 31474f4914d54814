/**
 * Which job data a host needs (pure): for each job in its desired state, the job's id and the working-directory
 * objects of the data bucket the job names; a fingerprint of that set, recorded on the host item with the
 * credentials' expiry, tells the next round whether to vend again (the job set changed, or the credentials expire
 * within `RENEW_BEFORE_SECONDS`).
 */
import { createHash } from 'node:crypto';
import type { DesiredJob } from '../../protocol/desired-state.ts';
import { type JobDataScope, WORKDIRS_PREFIX } from './session-policy.ts';

/**
 * Vend again this long before the credentials (15 minutes, credential-vendor.ts) expire: at the default 60 s round
 * interval a host gets new ones every 10–11 minutes, and four rounds in a row may fail or be late before its
 * credentials lapse (an agent reads its desired-state copy every few seconds).
 */
export const RENEW_BEFORE_SECONDS = 5 * 60;

/** What the host item records of the credentials it was last given (epoch seconds). */
export interface DataAccessRecord {
  readonly scope: string;
  readonly expiresAt: number;
  /** The jobs the credentials cover: a host still stopping one of them keeps access to it (leaving-jobs.ts). */
  readonly jobIds?: readonly string[];
}

/** Fields a user controls freely: an S3 URI there names nothing the job is given. */
const USER_FIELDS = new Set(['env', 'command']);

/** Every `s3://<bucket>/workdirs/…` URI among the job's launch settings, as object keys. */
export const workdirKeysOf = (job: DesiredJob, bucket: string): string[] => {
  const prefix = `s3://${bucket}/${WORKDIRS_PREFIX}/`;
  const keys = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value.startsWith(prefix)) keys.add(value.slice(`s3://${bucket}/`.length));
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  };
  for (const [field, value] of Object.entries(job)) if (!USER_FIELDS.has(field)) visit(value);
  return [...keys].sort();
};

/** The host's jobs with their working directories, plus the jobs it is still stopping (their prefix only). */
export const hostDataScope = (
  jobs: readonly DesiredJob[],
  bucket: string,
  leavingJobIds: readonly string[] = [],
): JobDataScope[] =>
  [
    ...jobs.map((job) => ({ jobId: job.jobId, workdirKeys: workdirKeysOf(job, bucket) })),
    ...leavingJobIds
      .filter((id) => !jobs.some((job) => job.jobId === id))
      .map((jobId) => ({ jobId, workdirKeys: [] })),
  ].sort((a, b) => (a.jobId < b.jobId ? -1 : 1));

export const scopeFingerprint = (scope: readonly JobDataScope[]): string =>
  createHash('sha256').update(JSON.stringify(scope)).digest('hex').slice(0, 32);

/** Whether the host needs new credentials for `scope` (a host without jobs needs none). */
export const needsVending = (
  current: DataAccessRecord | undefined,
  scope: readonly JobDataScope[],
  nowSeconds: number,
): boolean => {
  if (scope.length === 0) return false;
  if (!current || current.scope !== scopeFingerprint(scope)) return true;
  return current.expiresAt - nowSeconds < RENEW_BEFORE_SECONDS;
};
