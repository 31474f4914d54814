/**
 * HostDataRole: the one principal with rights on job data (`jobs/<jobId>/…`: checkpoints and logs) and on
 * uploaded working directories (`workdirs/…`, read only). Only the round function may assume it; it does so per
 * host with a session policy naming that host's jobs (lib/aws/credentials/session-policy.ts) and writes the
 * credentials into the host's private desired-state copy. GPU hosts' instance roles have no rights on job data, so
 * a host reaches only the data of the jobs placed on it.
 */
import { ArnPrincipal, type IRole, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { JOB_OBJECT_ACTIONS, JOBS_PREFIX, WORKDIRS_PREFIX } from '../aws/credentials/session-policy.ts';

export interface HostDataRoleProps {
  readonly bucket: Bucket;
  /** The round function's role: the only principal that may assume this one. */
  readonly vendor: IRole;
}

export class HostDataRole extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: HostDataRoleProps) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new ArnPrincipal(props.vendor.roleArn),
      description: 'Tessera job data, vended per host by the round with a session policy naming its jobs',
    });
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'JobData',
        actions: [...JOB_OBJECT_ACTIONS],
        resources: [props.bucket.arnForObjects(`${JOBS_PREFIX}/*`)],
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'ListJobData',
        actions: ['s3:ListBucket'],
        resources: [props.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${JOBS_PREFIX}/*`] } },
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'ReadWorkingDirectories',
        actions: ['s3:GetObject'],
        resources: [props.bucket.arnForObjects(`${WORKDIRS_PREFIX}/*`)],
      }),
    );
    this.role.grantAssumeRole(props.vendor);
  }
}
