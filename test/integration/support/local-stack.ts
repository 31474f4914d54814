/**
 * One control plane per integration test file: the CDK template synthesized in-process (no bundling), its
 * tables, queues, rules and launch templates created through an AWS-compatible endpoint — `AWS_ENDPOINT_URL` when
 * set (e.g. LocalStack), else a local endpoint started here — and the real handlers run by the local runner.
 * Resource names carry a per-file stack name, so files never collide on a shared endpoint.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AwsClients, createAwsClients } from '../../../lib/aws/clients.ts';
import { ENV, tableNames } from '../../../lib/aws/environment.ts';
import { HostsRepository } from '../../../lib/aws/repositories/hosts-repository.ts';
import { JobsRepository } from '../../../lib/aws/repositories/jobs-repository.ts';
import { ProfilesRepository } from '../../../lib/aws/repositories/profiles-repository.ts';
import { SchedulerStateRepository } from '../../../lib/aws/repositories/scheduler-state-repository.ts';
import { synthesizeTemplate } from '../../../lib/local/cloud/template.ts';
import { type LocalEndpoint, startLocalEndpoint } from '../../../lib/local/endpoint/index.ts';
import {
  type CfnTemplate,
  createResourcesFromTemplate,
  type TemplateResources,
} from '../../../lib/local/endpoint/template/create-resources.ts';
import { LocalLambdaRunner, type LocalRunnerOptions } from '../../../lib/local/runner/index.ts';
import { deleteTables, sharedDynamoDbLocal } from '../../support/shared-dynamodb-local.ts';

export const REGION = 'us-east-1';
export const ACCOUNT = '000000000000';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

export { synthesizeTemplate } from '../../../lib/local/cloud/template.ts';

export interface ControlPlane {
  readonly endpointUrl: string;
  /** The in-process local endpoint, or undefined when the tests run against `AWS_ENDPOINT_URL`. */
  readonly local?: LocalEndpoint;
  readonly clients: AwsClients;
  readonly template: CfnTemplate;
  readonly resources: TemplateResources;
  readonly runner: LocalLambdaRunner;
  readonly jobs: JobsRepository;
  readonly hosts: HostsRepository;
  readonly profiles: ProfilesRepository;
  readonly state: SchedulerStateRepository;
  readonly checkpointDir: string;
  /** URL of the queue whose logical id is `<path>` plus CDK's hash, e.g. `QueuesTelemetryDlq`. */
  queueUrl(path: string): string;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  readonly context?: Record<string, unknown>;
  readonly runner?: Partial<
    Omit<LocalRunnerOptions, 'template' | 'resources' | 'endpoint' | 'region' | 'accountId' | 'clients'>
  >;
  readonly ec2?: { pendingMs?: number };
}

export const startControlPlane = async (options: ControlPlaneOptions = {}): Promise<ControlPlane> => {
  const template = synthesizeTemplate(options.context);
  const external = process.env.AWS_ENDPOINT_URL;
  const local = external
    ? undefined
    : await startLocalEndpoint({
        port: 0,
        ec2: { pendingMs: options.ec2?.pendingMs ?? 50 },
        ...sharedDynamoDbLocal(),
      });
  const endpointUrl = external ?? local!.url;
  const checkpointDir = mkdtempSync(join(tmpdir(), 'tessera-it-'));
  try {
    const clients = createAwsClients({ endpoint: endpointUrl, region: REGION, credentials });
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const stackName = `it${randomBytes(3).toString('hex')}`;
    const resources = await createResourcesFromTemplate(
      template,
      {
        dynamodb: new DynamoDBClient({ endpoint: endpointUrl, region: REGION, credentials }),
        sqs: clients.sqs,
        ec2: clients.ec2,
        s3: clients.s3,
        ...(local ? { events: local.events } : {}),
      },
      { stackName, region: REGION, accountId: ACCOUNT },
    );
    const runner = new LocalLambdaRunner({
      template,
      resources,
      endpoint: endpointUrl,
      region: REGION,
      accountId: ACCOUNT,
      clients,
      logLevel: 'SILENT',
      visibilityTimeoutSeconds: 1,
      maxBatchingWindowMs: 100,
      ...options.runner,
      envOverrides: {
        ...options.runner?.envOverrides,
        round: { [ENV.checkpointRoot]: `file://${checkpointDir}`, ...options.runner?.envOverrides?.round },
      },
    });
    const names = tableNames(runner.environment('round'));
    const queueUrl = (prefix: string) => {
      const found = Object.values(resources.resources).find(
        (r) => r.type === 'AWS::SQS::Queue' && new RegExp(`^${prefix}[0-9A-F]{8}$`).test(r.logicalId),
      );
      if (!found?.url) throw new Error(`no queue with logical id ${prefix}<hash>`);
      return found.url;
    };
    return {
      endpointUrl,
      ...(local ? { local } : {}),
      clients,
      template,
      resources,
      runner,
      jobs: new JobsRepository(clients.dynamodb, names.jobs),
      hosts: new HostsRepository(clients.dynamodb, names.hosts),
      profiles: new ProfilesRepository(clients.dynamodb, names.profiles),
      state: new SchedulerStateRepository(clients.dynamodb, names.state),
      checkpointDir,
      queueUrl,
      stop: async () => {
        await runner.stop();
        if (local && sharedDynamoDbLocal().dynamodb) await deleteTables(endpointUrl, resources);
        await local?.stop();
        rmSync(checkpointDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await local?.stop();
    rmSync(checkpointDir, { recursive: true, force: true });
    throw error;
  }
};
