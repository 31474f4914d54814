/**
 * The S3 bucket for job data (checkpoints under `jobs/<jobId>/checkpoints/step-<S>/`) and the host agent bundle
 * (under `agent/`):
 * TLS only, encrypted, versioning off (checkpoints are immutable step directories), lifecycle rules expiring old
 * checkpoints and aborting stale multipart uploads; server access logs go to a second bucket. The agent bundle
 * is built with esbuild at synth time (agents/host/build.ts) and copied in by a BucketDeployment.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';

/** Everything of one job lives under `jobs/<jobId>/`; its checkpoints under `jobs/<jobId>/checkpoints/`. */
export const JOBS_PREFIX = 'jobs';
export const CHECKPOINTS_OF_ANY_JOB = `${JOBS_PREFIX}/*/checkpoints/*`;
export const AGENT_PREFIX = 'agent';

export interface TesseraStorageProps {
  readonly repositoryRoot: string;
  readonly checkpointRetentionDays: number;
}

export class TesseraStorage extends Construct {
  readonly bucket: Bucket;
  readonly accessLogs: Bucket;

  constructor(scope: Construct, id: string, props: TesseraStorageProps) {
    super(scope, id);
    const secure = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
    } as const;
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...secure,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
    });
    this.bucket = new Bucket(this, 'Bucket', {
      ...secure,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'bucket/',
      lifecycleRules: [
        {
          // Lifecycle filters match a key prefix only, so the rule covers every job's data under jobs/.
          id: 'expire-old-job-data',
          prefix: `${JOBS_PREFIX}/`,
          expiration: Duration.days(props.checkpointRetentionDays),
        },
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(2) },
      ],
    });
    const agentDir = join(props.repositoryRoot, 'agents', 'host');
    new BucketDeployment(this, 'AgentBundle', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: AGENT_PREFIX,
      memoryLimit: 256,
      sources: [
        Source.asset(agentDir, {
          bundling: {
            // Never pulled: local bundling (esbuild, in-process) either succeeds or throws, so Docker is not needed.
            image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-slim'),
            local: {
              tryBundle: (outputDir: string) => {
                const result = spawnSync(
                  process.execPath,
                  ['--import', 'tsx', join(agentDir, 'build.ts'), '--outdir', outputDir],
                  { cwd: props.repositoryRoot, encoding: 'utf8' },
                );
                if (result.status !== 0)
                  throw new Error(`building the host agent failed:\n${result.stderr || result.stdout}`);
                return true;
              },
            },
          },
        }),
      ],
    });
  }

  /** The round's checkpoint root: jobs checkpoint to `<root>/jobs/<jobId>/checkpoints`. */
  get checkpointRoot(): string {
    return `s3://${this.bucket.bucketName}`;
  }

  get agentAssetUri(): string {
    return `s3://${this.bucket.bucketName}/${AGENT_PREFIX}`;
  }
}
