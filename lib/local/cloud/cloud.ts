/**
 * The local cloud: everything a deployed stack runs, on one machine. The local AWS-compatible endpoint holds the
 * stack's tables, queues, rules and launch templates (created from the synthesized template); the real Lambda
 * handlers run through the local runner, wired as deployed (SQS event source mappings, EventBridge rules, the
 * round schedule — fired every `roundSeconds` instead of every minute); checkpoints go to the stack's bucket on the
 * endpoint's S3, staged by each agent as on EC2; the round's fleet stage launches
 * instances on the EC2 shim, and each running instance gets a real host-agent process with simulated GPUs. The
 * API is served over HTTP with SigV4 (api-gateway.ts). State survives restarts in `stateDir`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { buildAgent } from '../../../agents/host/build.ts';
import { createAwsClients } from '../../aws/clients.ts';
import { ENV, tableNames } from '../../aws/environment.ts';
import { type LocalEndpoint, startLocalEndpoint } from '../endpoint/index.ts';
import {
  type CfnTemplate,
  createResourcesFromTemplate,
  type TemplateResources,
} from '../endpoint/template/create-resources.ts';
import { LocalLambdaRunner } from '../runner/index.ts';
import { resolveTemplateFunctions } from '../runner/template-functions.ts';
import { AgentSupervisor } from './agent-supervisor.ts';
import { type LocalApiGateway, startLocalApiGateway } from './api-gateway.ts';
import { apiRoutesFromTemplate } from './api-routes.ts';
import { cachedTemplate } from './cached-template.ts';
import { familiesForGpuTypes } from './gpu-types.ts';

export const REGION = 'us-east-1';
export const ACCOUNT = '000000000000';
const STACK = 'tessera';
/** What local clients sign with (any key works locally; the access key id is the tenant). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface LocalCloudOptions {
  /** Where tables, EC2 state, checkpoints and agent logs live across restarts. */
  readonly stateDir: string;
  /** Wipe `stateDir` first. */
  readonly fresh?: boolean;
  /** Port of the AWS-compatible endpoint (0 = any free port). */
  readonly endpointPort?: number;
  /** Port of the API (0 = any free port). */
  readonly apiPort?: number;
  /** Most instances the fleet may run at once. */
  readonly maxHosts?: number;
  /** GPU types the fleet may launch (catalog ids or aliases). */
  readonly gpuTypes?: readonly string[];
  /** Seconds between scheduled rounds (arrivals and completions also trigger early rounds). */
  readonly roundSeconds?: number;
  /** Minutes an idle instance is kept before the fleet terminates it. */
  readonly idleCooldownMinutes?: number;
  /** USD per hour the fleet may spend (on-demand list prices). */
  readonly budgetPerHour?: number;
  /** Seconds without a heartbeat after which a host is lost and its jobs requeued. */
  readonly heartbeatTimeoutSeconds?: number;
  /** Milliseconds an instance stays `pending` on the EC2 shim. */
  readonly instanceBootMs?: number;
  readonly log?: (line: string) => void;
}

export interface LocalCloud {
  readonly endpoint: LocalEndpoint;
  readonly api: LocalApiGateway;
  readonly runner: LocalLambdaRunner;
  readonly agents: AgentSupervisor;
  readonly resources: TemplateResources;
  readonly stateDir: string;
  readonly runId: string;
  /** Environment a shell needs to use the CLI against this cloud. */
  readonly clientEnv: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export const startLocalCloud = async (options: LocalCloudOptions): Promise<LocalCloud> => {
  const say = options.log ?? (() => {});
  const log = (line: string) => say(`[${process.uptime().toFixed(1)} s] ${line}`);
  const stateDir = resolve(options.stateDir);
  if (options.fresh) rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const roundSeconds = options.roundSeconds ?? 10;
  const context = {
    'tessera:instanceFamilies': familiesForGpuTypes(options.gpuTypes ?? ['A10G', 'T4']).join(','),
    'tessera:maxInstances': options.maxHosts ?? 4,
    'tessera:idleCooldownMinutes': options.idleCooldownMinutes ?? 5,
    'tessera:budgetPerHour': options.budgetPerHour ?? 50,
  };
  // DynamoDB Local's JVM boots in its own process while this one synthesizes the template.
  const starting = startLocalEndpoint({
    port: options.endpointPort ?? 4566,
    dataDir: join(stateDir, 'aws'),
    region: REGION,
    ec2: { pendingMs: options.instanceBootMs ?? 1000, shuttingDownMs: 1000, privateIpPrefix: '127.0' },
  });
  // The agent is bundled as for EC2 (plain node starts it in half the time tsx needs), also meanwhile.
  const bundling = buildAgent(join(stateDir, 'agent-bundle'));
  let template: CfnTemplate;
  try {
    const result = await cachedTemplate(context);
    template = result.template;
    log(
      `stack template ${result.cached ? 'from cache' : 'synthesized'} (${context['tessera:instanceFamilies']}, ≤ ${context['tessera:maxInstances']} instances)`,
    );
  } catch (error) {
    await (await starting).stop();
    await bundling.catch(() => {});
    throw error;
  }
  const endpoint = await starting;

  const stops: (() => Promise<void>)[] = [() => endpoint.stop()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((e: unknown) => log(`stop: ${String(e)}`));
  };
  try {
    log(`AWS endpoint up at ${endpoint.url}`);
    const credentials = LOCAL_CREDENTIALS;
    const clients = createAwsClients({ endpoint: endpoint.url, region: REGION, credentials });
    const resources = await createResourcesFromTemplate(
      template,
      {
        dynamodb: new DynamoDBClient({ endpoint: endpoint.url, region: REGION, credentials }),
        sqs: clients.sqs,
        ec2: clients.ec2,
        events: endpoint.events,
        s3: new S3Client({ endpoint: endpoint.url, region: REGION, credentials, forcePathStyle: true }),
      },
      { stackName: STACK, region: REGION, accountId: ACCOUNT },
    );
    log('tables, queues, rules, launch templates and buckets ready');
    const functions = resolveTemplateFunctions(template, resources, { region: REGION, accountId: ACCOUNT });
    const roundEnv = functions.functions.find((f) => f.kind === 'round')!.env;
    const fleet = {
      ...JSON.parse(roundEnv[ENV.fleet]!),
      heartbeatTimeoutSeconds: options.heartbeatTimeoutSeconds ?? 30,
      registrationTimeoutSeconds: 120,
    };
    const runner = new LocalLambdaRunner({
      template,
      resources,
      endpoint: endpoint.url,
      region: REGION,
      accountId: ACCOUNT,
      clients,
      logLevel: 'ERROR',
      visibilityTimeoutSeconds: 5,
      maxBatchingWindowMs: 500,
      envOverrides: {
        round: {
          [ENV.roundSeconds]: String(roundSeconds),
          [ENV.fleet]: JSON.stringify(fleet),
        },
      },
      onError: (kind, error) => log(`${kind} function failed: ${String(error)}`),
    });
    runner.startEventSources();
    runner.attachEventBus(endpoint.events);
    stops.push(() => runner.stop());
    stops.push(startRoundTimer(endpoint, roundSeconds));

    const api = await startLocalApiGateway({
      routes: apiRoutesFromTemplate(template),
      port: options.apiPort ?? 4600,
      invoke: (event) => runner.invoke<APIGatewayProxyResult>('api', event),
    });
    stops.push(() => api.stop());

    const runId = randomBytes(6).toString('hex');
    const telemetryQueue = Object.values(resources.resources).find(
      (r) => r.type === 'AWS::SQS::Queue' && /^QueuesTelemetry[0-9A-F]{8}$/.test(r.logicalId),
    );
    const [agentBundle] = await bundling;
    log('host agent bundled');
    const roundTables = tableNames(runner.environment('round'));
    const agents = new AgentSupervisor({
      agentBundle: agentBundle!,
      runId,
      stateDir,
      endpointUrl: endpoint.url,
      region: REGION,
      hostsTable: tableNames(runner.environment('round')).hosts,
      // The copy the round writes with each host's job-data credentials (vended on the endpoint's STS).
      ...(roundTables.hostArnPrefix ? { desiredKeyPrefix: roundTables.hostArnPrefix } : {}),
      telemetryQueueUrl: telemetryQueue!.url!,
      logsBucket: runner.environment('api')[ENV.bucket],
      bus: endpoint.events,
      instances: () => endpoint.ec2.instances(),
      log,
    });
    agents.start();
    stops.push(() => agents.stop());

    const clientEnv = {
      TESSERA_ENDPOINT: api.url,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: REGION,
    };
    writeFileSync(
      join(stateDir, 'client.env'),
      `${Object.entries(clientEnv)
        .map(([k, v]) => `export ${k}=${v}`)
        .join('\n')}\n`,
    );
    return { endpoint, api, runner, agents, resources, stateDir, runId, clientEnv, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
};

/** Fires the stack's round schedule rule on the local bus every `seconds` (the deployed rule fires every minute). */
const startRoundTimer = (endpoint: LocalEndpoint, seconds: number): (() => Promise<void>) => {
  const rule = endpoint.events.scheduledRules().find((r) => r.rule.ScheduleExpression?.startsWith('rate('));
  if (!rule) throw new Error('the stack template has no round schedule rule');
  const timer = setInterval(() => endpoint.events.fireSchedule(rule.rule.Name), seconds * 1000);
  return async () => clearInterval(timer);
};
