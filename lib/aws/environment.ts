/**
 * Names of the environment variables the CDK stack gives the Lambda functions, and their parsing. One place,
 * so the stack and the handlers cannot drift apart. Each function gets only the variables it needs.
 */
import { z } from 'zod';
import { formatZodIssues } from '../protocol/format.ts';
import { fleetConfigSchema } from './fleet/fleet-config.ts';

export const ENV = {
  clusterName: 'TESSERA_CLUSTER_NAME',
  jobsTable: 'TESSERA_JOBS_TABLE',
  profilesTable: 'TESSERA_PROFILES_TABLE',
  hostsTable: 'TESSERA_HOSTS_TABLE',
  stateTable: 'TESSERA_STATE_TABLE',
  submissionsDlqUrl: 'TESSERA_SUBMISSIONS_DLQ_URL',
  schedulerEventsQueueUrl: 'TESSERA_SCHEDULER_EVENTS_QUEUE_URL',
  telemetryDlqUrl: 'TESSERA_TELEMETRY_DLQ_URL',
  /** Root under which each job checkpoints in `jobs/<jobId>/checkpoints` (`s3://bucket`, or `file:///…` in tests). */
  checkpointRoot: 'TESSERA_CHECKPOINT_ROOT',
  policy: 'TESSERA_POLICY',
  roundSeconds: 'TESSERA_ROUND_SECONDS',
  fleet: 'TESSERA_FLEET',
  /** Which handler a function runs: lets the local runner map template functions to modules. */
  functionKind: 'TESSERA_FUNCTION',
  /** Set only locally: the AWS-compatible endpoint every client talks to. */
  endpoint: 'AWS_ENDPOINT_URL',
  region: 'AWS_REGION',
  /**
   * The cluster bucket: the API reads worker logs under `jobs/<jobId>/logs/` in it, and `GET /config` tells the CLI
   * where to upload working directories.
   */
  bucket: 'TESSERA_BUCKET',
  /** `arn:<partition>:ec2:<region>:<account>:instance/`: keys of the hosts' desired-state copies (least privilege). */
  hostArnPrefix: 'TESSERA_HOST_ARN_PREFIX',
  /** The role the round assumes to vend each host credentials scoped to its jobs' data (optional). */
  hostDataRoleArn: 'TESSERA_HOST_DATA_ROLE_ARN',
} as const;

export const FUNCTION_KINDS = ['api', 'ingest', 'round', 'telemetry', 'fleet-events'] as const;
export type FunctionKind = (typeof FUNCTION_KINDS)[number];

export type Env = Readonly<Record<string, string | undefined>>;

const required = z.string().min(1, 'must be set');

const tables = {
  [ENV.jobsTable]: required,
  [ENV.hostsTable]: required,
  [ENV.hostArnPrefix]: z.string().optional(),
  [ENV.profilesTable]: required,
  [ENV.stateTable]: required,
};

const fleetJson = z.string().transform((text, ctx) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `must be JSON (${(error as Error).message})` });
    return z.NEVER;
  }
  const parsed = fleetConfigSchema.safeParse(value);
  if (!parsed.success) {
    ctx.addIssue({
      code: 'custom',
      message: `invalid fleet configuration:\n${formatZodIssues(parsed.error.issues)}`,
    });
    return z.NEVER;
  }
  return parsed.data;
});

const schemas = {
  api: z.object({
    ...tables,
    [ENV.schedulerEventsQueueUrl]: required,
    [ENV.bucket]: z.string().min(1).optional(),
    [ENV.region]: z.string().min(1).optional(),
    [ENV.endpoint]: z.string().min(1).optional(),
  }),
  ingest: z.object({
    ...tables,
    [ENV.schedulerEventsQueueUrl]: required,
    [ENV.submissionsDlqUrl]: required,
  }),
  round: z.object({
    ...tables,
    [ENV.clusterName]: required,
    [ENV.checkpointRoot]: z
      .string()
      .regex(/^(s3:\/\/[^/]+|file:\/\/\/)/, 'must be an s3://bucket/prefix or file:///path URI'),
    [ENV.policy]: z.string().default('tessera'),
    [ENV.roundSeconds]: z.coerce.number().int().positive().default(60),
    [ENV.fleet]: fleetJson,
    [ENV.hostDataRoleArn]: z.string().startsWith('arn:').optional(),
  }),
  telemetry: z.object({
    ...tables,
    [ENV.schedulerEventsQueueUrl]: required,
    [ENV.telemetryDlqUrl]: required,
  }),
  'fleet-events': z.object({
    ...tables,
    [ENV.clusterName]: required,
    [ENV.schedulerEventsQueueUrl]: required,
  }),
} satisfies Record<FunctionKind, z.ZodType>;

export type FunctionEnv<K extends FunctionKind> = z.infer<(typeof schemas)[K]>;

export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
}

/** The function's settings from its environment; throws naming every missing or malformed variable. */
export const readFunctionEnv = <K extends FunctionKind>(kind: K, env: Env): FunctionEnv<K> => {
  const parsed = schemas[kind].safeParse(env);
  if (!parsed.success) {
    throw new EnvironmentError(
      `${kind} function environment is invalid:\n${formatZodIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data as FunctionEnv<K>;
};

/** The table names every repository needs. */
export interface TableNames {
  readonly jobs: string;
  readonly hosts: string;
  readonly hostArnPrefix?: string;
  readonly profiles: string;
  readonly state: string;
}

export const tableNames = (env: Record<string, unknown>): TableNames => ({
  jobs: String(env[ENV.jobsTable]),
  hosts: String(env[ENV.hostsTable]),
  ...(typeof env[ENV.hostArnPrefix] === 'string' ? { hostArnPrefix: env[ENV.hostArnPrefix] as string } : {}),
  profiles: String(env[ENV.profilesTable]),
  state: String(env[ENV.stateTable]),
});
