/**
 * Agent configuration from command-line flags, falling back to TESSERA_AGENT_* environment variables
 * (systemd's EnvironmentFile on EC2), falling back to the mode's defaults. Errors name the flag and
 * the variable.
 */
import { Command, CommanderError } from 'commander';
import type { AgentTimings } from './agent.ts';

export type DesiredStateConfig =
  | {
      kind: 'dynamodb';
      table: string;
      keyAttribute: string;
      desiredAttribute: string;
      /** Key value of the item to read; null = the host id. On EC2, the instance ARN (least privilege). */
      key: string | null;
    }
  | { kind: 'file'; path: string };
export type TelemetryConfig =
  | { kind: 'sqs'; queueUrl: string }
  | { kind: 'jsonl'; path: string }
  | { kind: 'stdout' };
/** Where worker output is shipped: an S3 bucket (chunks under jobs/<jobId>/logs/), or nowhere (host disk only). */
export type LogsConfig = { kind: 's3'; bucket: string; flushSeconds: number } | { kind: 'none' };
export type GpuConfig =
  | { kind: 'nvidia-smi'; command: string }
  | { kind: 'simulated'; count: number; type: string };

export interface AgentConfig {
  mode: 'ec2' | 'local';
  /** Null: the EC2 instance id (ec2 mode) or the machine's host name (local mode). */
  hostId: string | null;
  stateDir: string;
  desiredState: DesiredStateConfig;
  telemetry: TelemetryConfig;
  gpus: GpuConfig;
  /** Null: no instance metadata (local mode): no identity, no Spot notices. */
  imdsUrl: string | null;
  topology: 'ec2' | 'none';
  /** Address other hosts reach this one at; null: IMDS local-ipv4 (ec2 mode), 127.0.0.1 (local mode). */
  address: string | null;
  aws: { region?: string; endpoint?: string };
  /** The container runtime binary for jobs with an `image` (docker by default). */
  containerRuntime: string;
  timings: AgentTimings;
  logs: LogsConfig;
}

export class ConfigError extends Error {}

interface Setting {
  flag: string;
  env: string;
  description: string;
}

const s = (flag: string, env: string, description: string): Setting => ({
  flag,
  env: `TESSERA_AGENT_${env}`,
  description,
});

const SETTINGS = {
  mode: s('mode', 'MODE', 'ec2 or local (default ec2)'),
  hostId: s('host-id', 'HOST_ID', 'host id (default: EC2 instance id, or the host name in local mode)'),
  stateDir: s(
    'state-dir',
    'STATE_DIR',
    'state file and worker logs (default /var/lib/tessera-agent; local: .tessera/agent-<host>)',
  ),
  desiredState: s('desired-state', 'DESIRED_STATE', 'dynamodb:<HostsTable> or file:<path>'),
  telemetry: s('telemetry', 'TELEMETRY', 'sqs:<queue URL>, jsonl:<path> or stdout (local default)'),
  gpus: s(
    'gpus',
    'GPUS',
    'nvidia-smi (ec2 default) or sim:<count>x<type>, e.g. sim:4xA100 (local default sim:1xT4)',
  ),
  imdsUrl: s(
    'imds-url',
    'IMDS_URL',
    'instance metadata base URL or "none" (ec2 default http://169.254.169.254)',
  ),
  topology: s('topology', 'TOPOLOGY', 'ec2 (DescribeInstanceTopology) or none'),
  address: s(
    'address',
    'ADDRESS',
    "address other hosts reach this one at, the rendezvous of jobs whose rank 0 runs here (default: the instance's private IPv4 from IMDS; local 127.0.0.1)",
  ),
  keyAttribute: s(
    'hosts-key-attribute',
    'HOSTS_KEY_ATTRIBUTE',
    'partition key of the Hosts table (default hostId)',
  ),
  desiredKey: s(
    'desired-key',
    'DESIRED_KEY',
    'key of the item holding the desired state (default the host id; on EC2 the instance ARN, the only key its role may read)',
  ),
  containerRuntime: s(
    'container-runtime',
    'CONTAINER_RUNTIME',
    'container runtime binary for jobs with an image (default docker; any CLI taking docker run flags)',
  ),
  desiredAttribute: s(
    'desired-attribute',
    'DESIRED_ATTRIBUTE',
    'attribute holding the desired state (default desired)',
  ),
  logs: s('logs', 'LOGS', 'where worker stdout/stderr is shipped: s3://<bucket> or none (default none)'),
  logFlushSeconds: s(
    'log-flush-seconds',
    'LOG_FLUSH_SECONDS',
    'seconds a worker output line waits at most before its chunk is shipped (default 5)',
  ),
} as const;

const TIMINGS: Record<keyof AgentTimings, Setting & { fallback: number; min: number }> = {
  pollIntervalMs: { ...s('poll-ms', 'POLL_MS', 'desired-state poll interval'), fallback: 2_000, min: 1 },
  heartbeatIntervalMs: {
    ...s('heartbeat-ms', 'HEARTBEAT_MS', 'heartbeat interval'),
    fallback: 15_000,
    min: 1,
  },
  tickIntervalMs: {
    ...s('tick-ms', 'TICK_MS', 'worker output / liveness / deadline check interval'),
    fallback: 200,
    min: 1,
  },
  telemetryFlushIntervalMs: {
    ...s('flush-ms', 'FLUSH_MS', 'telemetry flush interval'),
    fallback: 1_000,
    min: 1,
  },
  spotPollIntervalMs: {
    ...s('spot-poll-ms', 'SPOT_POLL_MS', 'Spot notice poll interval'),
    fallback: 5_000,
    min: 1,
  },
  checkpointTimeoutMs: {
    ...s('checkpoint-timeout-ms', 'CHECKPOINT_TIMEOUT_MS', 'time to checkpoint and exit after SIGUSR2'),
    fallback: 300_000,
    min: 1,
  },
  spotDeadlineMs: {
    ...s('spot-deadline-ms', 'SPOT_DEADLINE_MS', 'time to checkpoint everything after a Spot notice'),
    fallback: 100_000,
    min: 1,
  },
  drainTimeoutMs: {
    ...s('drain-timeout-ms', 'DRAIN_TIMEOUT_MS', 'time to drain on SIGTERM'),
    fallback: 240_000,
    min: 1,
  },
  maxCrashes: {
    ...s('max-crashes', 'MAX_CRASHES', 'crashes of one generation before the job is failed'),
    fallback: 3,
    min: 1,
  },
  backoffBaseMs: {
    ...s('backoff-base-ms', 'BACKOFF_BASE_MS', 'restart delay after the first crash (doubles)'),
    fallback: 5_000,
    min: 0,
  },
  backoffMaxMs: {
    ...s('backoff-max-ms', 'BACKOFF_MAX_MS', 'longest restart delay'),
    fallback: 300_000,
    min: 0,
  },
  progressIntervalMs: {
    ...s('progress-interval-ms', 'PROGRESS_INTERVAL_MS', 'minimum time between progress messages of a job'),
    fallback: 10_000,
    min: 0,
  },
};

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

export function agentCommand(): Command {
  const command = new Command('tessera-agent')
    .description('Tessera host agent: runs the training workers the control plane assigns to this host')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: (text) => process.stdout.write(text) });
  for (const setting of [...Object.values(SETTINGS), ...Object.values(TIMINGS)]) {
    command.option(`--${setting.flag} <value>`, `${setting.description} [env ${setting.env}]`);
  }
  return command;
}

/** Parses flags (argv without node and script) and environment into a complete configuration. */
export function parseAgentConfig(argv: readonly string[], env: NodeJS.ProcessEnv): AgentConfig {
  const command = agentCommand();
  try {
    command.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new ConfigError(error.message.replace(/^error: /, ''));
    throw error;
  }
  const flags = command.opts<Record<string, string | undefined>>();
  const read = (setting: Setting): { value: string; source: string } | undefined => {
    const flag = flags[camel(setting.flag)];
    if (flag !== undefined) return { value: flag, source: `--${setting.flag}` };
    const fromEnv = env[setting.env];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: setting.env };
    return undefined;
  };

  const modeValue = read(SETTINGS.mode)?.value ?? 'ec2';
  if (modeValue !== 'ec2' && modeValue !== 'local') {
    throw new ConfigError(`--mode / ${SETTINGS.mode.env}: "${modeValue}" must be ec2 or local`);
  }
  const mode = modeValue;
  const local = mode === 'local';
  const hostId = read(SETTINGS.hostId)?.value ?? null;

  const desired = read(SETTINGS.desiredState);
  if (!desired) {
    throw new ConfigError(
      `--desired-state / ${SETTINGS.desiredState.env} is required (dynamodb:<table> or file:<path>)`,
    );
  }
  const desiredState = parseDesiredState(
    desired,
    read(SETTINGS.keyAttribute)?.value,
    read(SETTINGS.desiredAttribute)?.value,
    read(SETTINGS.desiredKey)?.value,
  );

  const telemetrySetting = read(SETTINGS.telemetry);
  if (!telemetrySetting && !local) {
    throw new ConfigError(
      `--telemetry / ${SETTINGS.telemetry.env} is required in ec2 mode (sqs:<queue URL>)`,
    );
  }
  const telemetry = parseTelemetry(telemetrySetting ?? { value: 'stdout', source: 'default' });

  const gpus = parseGpus(
    read(SETTINGS.gpus) ?? { value: local ? 'sim:1xT4' : 'nvidia-smi', source: 'default' },
  );

  const imdsSetting = read(SETTINGS.imdsUrl)?.value ?? (local ? 'none' : 'http://169.254.169.254');
  let imdsUrl: string | null = null;
  if (imdsSetting !== 'none') {
    if (!/^https?:\/\/[^/]+/.test(imdsSetting)) {
      throw new ConfigError(
        `--imds-url / ${SETTINGS.imdsUrl.env}: "${imdsSetting}" must be an http(s) URL or "none"`,
      );
    }
    imdsUrl = imdsSetting;
  }

  const topologyValue = read(SETTINGS.topology)?.value ?? (local ? 'none' : 'ec2');
  if (topologyValue !== 'ec2' && topologyValue !== 'none') {
    throw new ConfigError(`--topology / ${SETTINGS.topology.env}: "${topologyValue}" must be ec2 or none`);
  }

  const addressSetting = read(SETTINGS.address);
  if (addressSetting && /\s|\//.test(addressSetting.value)) {
    throw new ConfigError(
      `${addressSetting.source}: "${addressSetting.value}" must be an IP address or host name`,
    );
  }

  const timings = {} as AgentTimings;
  for (const [key, setting] of Object.entries(TIMINGS) as [
    keyof AgentTimings,
    (typeof TIMINGS)[keyof AgentTimings],
  ][]) {
    const given = read(setting);
    if (!given) {
      timings[key] = setting.fallback;
      continue;
    }
    const value = Number(given.value);
    if (!Number.isInteger(value) || value < setting.min) {
      throw new ConfigError(`${given.source}: "${given.value}" must be an integer ≥ ${setting.min}`);
    }
    timings[key] = value;
  }

  const aws: AgentConfig['aws'] = {};
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (region) aws.region = region;
  if (env.AWS_ENDPOINT_URL) aws.endpoint = env.AWS_ENDPOINT_URL;

  return {
    mode,
    hostId,
    stateDir:
      read(SETTINGS.stateDir)?.value ??
      (local
        ? `.tessera/agent-${(hostId ?? 'local').replace(/[^A-Za-z0-9._-]/g, '_')}`
        : '/var/lib/tessera-agent'),
    desiredState,
    telemetry,
    gpus,
    imdsUrl,
    topology: topologyValue,
    address: addressSetting?.value ?? null,
    aws,
    containerRuntime: read(SETTINGS.containerRuntime)?.value ?? 'docker',
    timings,
    logs: parseLogs(read(SETTINGS.logs), read(SETTINGS.logFlushSeconds)),
  };
}

type Given = { value: string; source: string } | undefined;

function parseLogs(setting: Given, flush: Given): LogsConfig {
  let flushSeconds = 5;
  if (flush) {
    flushSeconds = Number(flush.value);
    if (!Number.isFinite(flushSeconds) || flushSeconds <= 0)
      throw new ConfigError(`${flush.source}: "${flush.value}" must be a number of seconds > 0`);
  }
  if (!setting || setting.value === 'none') return { kind: 'none' };
  const bucket = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/?$/.exec(setting.value);
  if (!bucket) throw new ConfigError(`${setting.source}: "${setting.value}" must be s3://<bucket> or none`);
  return { kind: 's3', bucket: bucket[1]!, flushSeconds };
}

function parseDesiredState(
  setting: { value: string; source: string },
  keyAttribute = 'hostId',
  desiredAttribute = 'desired',
  key: string | null = null,
): DesiredStateConfig {
  const [kind, ...rest] = setting.value.split(':');
  const target = rest.join(':');
  if (kind === 'dynamodb' && target) return { kind, table: target, keyAttribute, desiredAttribute, key };
  if (kind === 'file' && target) return { kind, path: target };
  throw new ConfigError(`${setting.source}: "${setting.value}" must be dynamodb:<table> or file:<path>`);
}

function parseTelemetry(setting: { value: string; source: string }): TelemetryConfig {
  if (setting.value === 'stdout') return { kind: 'stdout' };
  const [kind, ...rest] = setting.value.split(':');
  const target = rest.join(':');
  if (kind === 'sqs' && /^https?:\/\//.test(target)) return { kind, queueUrl: target };
  if (kind === 'jsonl' && target) return { kind, path: target };
  throw new ConfigError(
    `${setting.source}: "${setting.value}" must be sqs:<queue URL>, jsonl:<path> or stdout`,
  );
}

function parseGpus(setting: { value: string; source: string }): GpuConfig {
  if (setting.value === 'nvidia-smi') return { kind: 'nvidia-smi', command: 'nvidia-smi' };
  if (setting.value.startsWith('nvidia-smi:'))
    return { kind: 'nvidia-smi', command: setting.value.slice('nvidia-smi:'.length) };
  const simulated = /^sim:(\d+)x([A-Za-z0-9._-]+)$/.exec(setting.value);
  if (simulated) return { kind: 'simulated', count: Number(simulated[1]), type: simulated[2]! };
  throw new ConfigError(
    `${setting.source}: "${setting.value}" must be nvidia-smi, nvidia-smi:<path> or sim:<count>x<type>`,
  );
}
