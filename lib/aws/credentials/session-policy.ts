/**
 * Session policies for a host's job-data credentials (pure). The HostDataRole may touch every job's objects;
 * a session policy passed to AssumeRole narrows one session to the jobs placed on one host: their
 * `jobs/<jobId>/` prefix (objects and listing) and the exact working-directory objects they name. AWS caps a
 * session policy at 2,048 characters, so a host with many jobs gets several sessions, each with as many whole
 * jobs as fit; a job is never widened to a wildcard that would reach another job.
 */

export const SESSION_POLICY_MAX_CHARS = 2048;
export const JOBS_PREFIX = 'jobs';
export const WORKDIRS_PREFIX = 'workdirs';

/** What one job may reach: its own prefix, and the working-directory objects (`workdirs/…` keys) it names. */
export interface JobDataScope {
  readonly jobId: string;
  readonly workdirKeys: readonly string[];
}

export interface SessionGroup {
  readonly jobs: readonly JobDataScope[];
  /** The session policy, minified JSON. */
  readonly policy: string;
}

/** Object rights of a job's session on its own prefix; the role's policy grants the same, never more. */
export const JOB_OBJECT_ACTIONS = [
  's3:GetObject',
  's3:PutObject',
  's3:DeleteObject',
  's3:AbortMultipartUpload',
  // Log chunks are written with a tag (the lifecycle rule of logs/ filters on it).
  's3:PutObjectTagging',
] as const;

// Server-generated job ids and content-addressed keys: no IAM wildcard (`*`, `?`) or variable (`$`) can slip in.
const SAFE_JOB_ID = /^[A-Za-z0-9._-]+$/;
const SAFE_WORKDIR_KEY = new RegExp(`^${WORKDIRS_PREFIX}/[A-Za-z0-9._-]+$`);

export const jobPrefix = (jobId: string): string => `${JOBS_PREFIX}/${jobId}/`;

export class SessionPolicyError extends Error {
  override readonly name = 'SessionPolicyError';
}

/** The session policy of exactly these jobs (throws on ids or keys an IAM pattern could misread). */
export const sessionPolicyFor = (bucketArn: string, jobs: readonly JobDataScope[]): string => {
  for (const job of jobs) {
    if (!SAFE_JOB_ID.test(job.jobId)) throw new SessionPolicyError(`job id "${job.jobId}" is not IAM-safe`);
    for (const key of job.workdirKeys)
      if (!SAFE_WORKDIR_KEY.test(key))
        throw new SessionPolicyError(`working directory "${key}" is not IAM-safe`);
  }
  const workdirs = [...new Set(jobs.flatMap((j) => j.workdirKeys))].sort();
  const statements: unknown[] = [
    {
      Effect: 'Allow',
      Action: [...JOB_OBJECT_ACTIONS],
      Resource: jobs.map((j) => `${bucketArn}/${jobPrefix(j.jobId)}*`),
    },
    {
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: bucketArn,
      Condition: { StringLike: { 's3:prefix': jobs.map((j) => `${jobPrefix(j.jobId)}*`) } },
    },
  ];
  if (workdirs.length > 0)
    statements.push({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Resource: workdirs.map((k) => `${bucketArn}/${k}`),
    });
  return JSON.stringify({ Version: '2012-10-17', Statement: statements });
};

/**
 * The jobs split into sessions whose policies fit `maxChars`, in job-id order, each as full as it can be.
 * Throws when one job alone does not fit (it names too many working directories).
 */
export const sessionGroups = (
  bucketArn: string,
  jobs: readonly JobDataScope[],
  maxChars = SESSION_POLICY_MAX_CHARS,
): SessionGroup[] => {
  const groups: SessionGroup[] = [];
  let current: JobDataScope[] = [];
  let policy = '';
  for (const job of [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : 1))) {
    const candidate = sessionPolicyFor(bucketArn, [...current, job]);
    if (candidate.length <= maxChars) {
      current.push(job);
      policy = candidate;
      continue;
    }
    if (current.length > 0) groups.push({ jobs: current, policy });
    current = [job];
    policy = sessionPolicyFor(bucketArn, current);
    if (policy.length > maxChars)
      throw new SessionPolicyError(
        `job ${job.jobId}: its session policy takes ${policy.length} characters, over the ${maxChars} AWS allows`,
      );
  }
  if (current.length > 0) groups.push({ jobs: current, policy });
  return groups;
};
