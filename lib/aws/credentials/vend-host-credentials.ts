/**
 * Step 6b' of a round: job-data credentials for the hosts whose job set changed or whose credentials expire soon.
 * One AssumeRole per session group (see session-policy.ts); a few hosts at a time. A host whose vending fails
 * keeps what it has (its old credentials stay valid until they expire) and is retried by the next round: it never
 * fails the round.
 */
import type { DataCredentialSet } from '../../protocol/data-credentials.ts';
import type { DesiredJob } from '../../protocol/desired-state.ts';
import type { CredentialVendor } from './credential-vendor.ts';
import { type DataAccessRecord, hostDataScope, needsVending, scopeFingerprint } from './data-scope.ts';
import { sessionGroups } from './session-policy.ts';

export interface DataAccessSettings {
  readonly vendor: CredentialVendor;
  /** The bucket holding `jobs/` and `workdirs/`. */
  readonly bucket: string;
  /** `arn:<partition>:s3:::<bucket>`. */
  readonly bucketArn: string;
}

/** What the round writes for one host: the record on its item and the credentials on its desired-state copy. */
export interface HostDataGrant {
  readonly record: DataAccessRecord;
  readonly credentials: DataCredentialSet[];
}

export interface HostNeed {
  readonly hostId: string;
  readonly dataAccess?: DataAccessRecord;
  readonly jobs: readonly DesiredJob[];
  /** Jobs the host is still stopping: their prefix stays in its credentials (leaving-jobs.ts). */
  readonly leavingJobIds?: readonly string[];
}

const CONCURRENCY = 8;

/** A role session name (2–64 of `[\w+=,.@-]`) that names the host, so CloudTrail shows who used it. */
export const sessionNameOf = (hostId: string, group: number): string => {
  const base = hostId.replace(/[^\w+=,.@-]/g, '-').slice(0, 58);
  return (group === 0 ? base : `${base}.${group}`).padEnd(2, '-');
};

export const vendHostCredentials = async (
  needs: readonly HostNeed[],
  settings: DataAccessSettings,
  nowSeconds: number,
  onError: (hostId: string, error: unknown) => void,
): Promise<Map<string, HostDataGrant>> => {
  const due = needs
    .map((n) => ({ ...n, scope: hostDataScope(n.jobs, settings.bucket, n.leavingJobIds) }))
    .filter((n) => needsVending(n.dataAccess, n.scope, nowSeconds));
  const grants = new Map<string, HostDataGrant>();
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    await Promise.all(
      due.slice(i, i + CONCURRENCY).map(async (host) => {
        try {
          const groups = sessionGroups(settings.bucketArn, host.scope);
          const credentials = await Promise.all(
            groups.map(async (group, g) => {
              const workdirKeys = [...new Set(group.jobs.flatMap((j) => j.workdirKeys))].sort();
              return {
                jobIds: group.jobs.map((j) => j.jobId),
                ...(workdirKeys.length > 0 ? { workdirKeys } : {}),
                ...(await settings.vendor.vend(sessionNameOf(host.hostId, g), group.policy)),
              };
            }),
          );
          const expiresAt = Math.min(...credentials.map((c) => c.expiresAt));
          grants.set(host.hostId, {
            record: {
              scope: scopeFingerprint(host.scope),
              expiresAt,
              jobIds: host.scope.map((j) => j.jobId),
            },
            credentials,
          });
        } catch (error) {
          onError(host.hostId, error);
        }
      }),
    );
  }
  return grants;
};

/**
 * The settings when the round should vend: a HostDataRole is configured and job data lives in an S3 bucket
 * (`dataRoot` = `s3://<bucket>/…`); otherwise undefined (hosts keep reaching data with their own credentials).
 */
export const dataAccessSettings = (
  roleArn: string | undefined,
  dataRoot: string,
  vendorFor: (roleArn: string) => CredentialVendor,
): DataAccessSettings | undefined => {
  const bucket = /^s3:\/\/([^/]+)/.exec(dataRoot)?.[1];
  const partition = roleArn ? /^arn:([^:]+):/.exec(roleArn)?.[1] : undefined;
  if (!roleArn || !bucket || !partition) return undefined;
  return { vendor: vendorFor(roleArn), bucket, bucketArn: `arn:${partition}:s3:::${bucket}` };
};
