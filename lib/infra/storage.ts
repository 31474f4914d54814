/**
 * The S3 bucket for checkpoints (under `checkpoints/<jobId>/`), worker logs (under `jobs/<jobId>/logs/`, expired
 * after `logRetentionDays`) and the host agent bundle (under `agent/`):
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
import { LOG_OBJECT_TAG } from '../protocol/log-chunk.ts';

export const CHECKPOINT_PREFIX = 'checkpoints';
export const AGENT_PREFIX = 'agent';
/** Worker logs live under `jobs/<jobId>/logs/` (lib/protocol/log-chunk.ts). */
export const JOBS_PREFIX = 'jobs';
export const JOB_LOGS_PATTERN = `${JOBS_PREFIX}/*/logs/*`;

export interface TesseraStorageProps {
  readonly repositoryRoot: string;
  readonly checkpointRetentionDays: number;
  /** Days worker logs are kept. */
  readonly logRetentionDays: number;
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
          id: 'expire-old-checkpoints',
          prefix: `${CHECKPOINT_PREFIX}/`,
          expiration: Duration.days(props.checkpointRetentionDays),
        },
        {
          // Lifecycle filters take a prefix, not a wildcard: log chunks carry a tag, so the rule spares the
          // checkpoints that share a job's `jobs/<jobId>/` prefix.
          id: 'expire-job-logs',
          prefix: `${JOBS_PREFIX}/`,
          tagFilters: { [LOG_OBJECT_TAG.key]: LOG_OBJECT_TAG.value },
          expiration: Duration.days(props.logRetentionDays),
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

  get checkpointRoot(): string {
    return `s3://${this.bucket.bucketName}/${CHECKPOINT_PREFIX}`;
  }

  get agentAssetUri(): string {
    return `s3://${this.bucket.bucketName}/${AGENT_PREFIX}`;
  }
}
