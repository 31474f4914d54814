/**
 * CLI entry of the host agent (bundled to dist/agent.mjs for EC2, run with tsx in development):
 *   node --import tsx agents/host/main.ts --mode local --desired-state file:desired.json --gpus sim:4xA100
 * See docs/host-agent.md for every flag and environment variable.
 */
import { hostname, networkInterfaces } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HostTopology } from '../../lib/protocol/telemetry.ts';
import { type AgentDependencies, HostAgent, type HostIdentity } from './agent.ts';
import { type AgentConfig, agentCommand, ConfigError, parseAgentConfig } from './config.ts';
import type { GpuDiscovery } from './discovery/gpus.ts';
import { ImdsClient } from './discovery/imds.ts';
import { interfaceForAddress } from './discovery/network-interface.ts';
import { NvidiaSmiDiscovery } from './discovery/nvidia-smi.ts';
import { SimulatedGpuDiscovery } from './discovery/simulated-gpus.ts';
import { Ec2TopologySource } from './discovery/topology.ts';
import { errorMessage, jsonLogger, type Logger } from './logger.ts';
import { DEFAULT_CHUNK_LIMITS } from './logs/chunk-policy.ts';
import { S3LogSink } from './logs/s3-log-sink.ts';
import { type DesiredStateSource, FileDesiredStateSource } from './ports/desired-state-source.ts';
import { DynamoDbDesiredStateSource } from './ports/dynamodb-desired-state-source.ts';
import { SqsTelemetrySink } from './ports/sqs-telemetry-sink.ts';
import { JsonLinesTelemetrySink, type TelemetrySink } from './ports/telemetry-sink.ts';
import { CheckpointStaging } from './storage/checkpoint-staging.ts';
import { HostDataCredentials } from './storage/data-credentials.ts';
import { S3CheckpointStore } from './storage/s3-checkpoint-store.ts';
import { createS3Client } from './storage/s3-client.ts';
import { workspaceLauncher } from './workspace/workspace-setup.ts';

const IDENTITY_ATTEMPTS = 5;

async function resolveIdentity(imds: ImdsClient | null, logger: Logger): Promise<HostIdentity> {
  if (!imds) return { instanceId: null, instanceType: null, availabilityZone: null };
  for (let attempt = 1; ; attempt++) {
    try {
      return await imds.identity();
    } catch (error) {
      // IMDS can be briefly unavailable right after boot; without an identity the agent cannot register.
      if (attempt >= IDENTITY_ATTEMPTS) throw error;
      logger.warn('instance metadata not available yet; retrying', { attempt, error: errorMessage(error) });
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
}

async function resolveTopology(
  config: AgentConfig,
  instanceId: string | null,
  logger: Logger,
): Promise<HostTopology | null> {
  if (config.topology !== 'ec2' || instanceId === null) return null;
  try {
    return await new Ec2TopologySource(new EC2Client(config.aws)).topology(instanceId);
  } catch (error) {
    // Topology only improves placement; a host without it is still usable.
    logger.warn('instance topology unavailable', { error: errorMessage(error) });
    return null;
  }
}

/** The configured address, else the instance's private IPv4 (EC2), else loopback (one machine, local mode). */
async function resolveNetwork(
  config: AgentConfig,
  imds: ImdsClient | null,
  logger: Logger,
): Promise<AgentDependencies['network']> {
  let address = config.address;
  if (address === null && imds) {
    try {
      address = await imds.privateAddress();
    } catch (error) {
      // Without it the control plane falls back to the address EC2 reported at launch.
      logger.warn('private address unavailable from instance metadata', { error: errorMessage(error) });
      return undefined;
    }
  }
  address ??= '127.0.0.1';
  return { address, interfaceName: interfaceForAddress(address, networkInterfaces()) };
}

function desiredStateSource(
  config: AgentConfig,
  hostId: string,
  credentials: HostDataCredentials,
  logger: Logger,
): DesiredStateSource {
  const desired = config.desiredState;
  if (desired.kind === 'file') return new FileDesiredStateSource(desired.path);
  return new DynamoDbDesiredStateSource(DynamoDBDocumentClient.from(new DynamoDBClient(config.aws)), {
    tableName: desired.table,
    hostId: desired.key ?? hostId,
    keyAttribute: desired.keyAttribute,
    desiredAttribute: desired.desiredAttribute,
    // Job-data credentials arrive with the desired state (renewed by the control plane before they expire).
    onDataCredentials: (raw) => {
      if (!credentials.update(raw))
        logger.warn('malformed job-data credentials ignored; keeping the previous ones');
    },
  });
}

function telemetrySink(config: AgentConfig): TelemetrySink {
  const telemetry = config.telemetry;
  if (telemetry.kind === 'sqs')
    return new SqsTelemetrySink(new SQSClient(config.aws), { queueUrl: telemetry.queueUrl });
  return new JsonLinesTelemetrySink(telemetry.kind === 'jsonl' ? telemetry.path : null);
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    agentCommand().outputHelp();
    return;
  }
  let config: AgentConfig;
  try {
    config = parseAgentConfig(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`tessera-agent: ${error.message}\n`);
    process.exit(2);
  }
  const logger = jsonLogger();
  const imds = config.imdsUrl ? new ImdsClient({ baseUrl: config.imdsUrl }) : null;
  const identity = await resolveIdentity(imds, logger);
  const hostId = config.hostId ?? identity.instanceId ?? hostname();
  const topology = await resolveTopology(config, identity.instanceId, logger);
  const network = await resolveNetwork(config, imds, logger);

  let agent: HostAgent | null = null;
  const dataCredentials = new HostDataCredentials();
  const gpus: GpuDiscovery =
    config.gpus.kind === 'nvidia-smi'
      ? new NvidiaSmiDiscovery({ command: config.gpus.command })
      : new SimulatedGpuDiscovery({
          count: config.gpus.count,
          type: config.gpus.type,
          hostId,
          utilization: (index) => (agent ? (agent.busyGpus().has(index) ? 100 : 0) : null),
        });
  const dependencies: AgentDependencies = {
    hostId,
    identity,
    topology,
    gpus,
    desiredState: desiredStateSource(config, hostId, dataCredentials, logger),
    dataCredentials,
    telemetry: telemetrySink(config),
    stateDir: config.stateDir,
    timings: config.timings,
    spotNotices: imds,
    checkpointStaging: new CheckpointStaging({
      store: new S3CheckpointStore(createS3Client({ ...config.aws, dataCredentials })),
      stateDir: config.stateDir,
      logger,
    }),
    logger,
    ...(network ? { network } : {}),
    ...(config.logs.kind === 's3'
      ? {
          logSink: new S3LogSink(createS3Client(config.aws), config.logs.bucket),
          logLimits: { ...DEFAULT_CHUNK_LIMITS, flushSeconds: config.logs.flushSeconds },
        }
      : {}),
    workspaces: workspaceLauncher(config),
  };
  agent = new HostAgent(dependencies);
  const running = agent;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('draining before exit', { signal });
    running.drainAndStop().then(
      () => process.exit(0),
      (error) => {
        logger.error('drain failed', { error: errorMessage(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await running.start();
}

main(process.argv.slice(2)).catch((error) => {
  // Workers are left running on purpose: systemd restarts the agent, which re-adopts them.
  process.stderr.write(
    `tessera-agent: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
