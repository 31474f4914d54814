/**
 * `tessera local` (what `npm start` runs): starts the local cloud, submits the demo workload through the API with
 * the typed client, prints where everything is, and on Ctrl-C (SIGINT) or SIGTERM stops every process it started.
 */
import { type Command, Option } from 'commander';
import { TesseraClient } from '../client/index.ts';
import { LOCAL_CREDENTIALS, type LocalCloud, startLocalCloud } from '../local/cloud/cloud.ts';
import { demoJobs } from '../local/cloud/demo-workload.ts';
import { runnerApiCaller } from '../local/dashboard/api-caller.ts';
import { type Dashboard, startDashboard } from '../local/dashboard/server.ts';
import { commaList, nonNegativeInt, positiveInt, positiveNumber } from './options.ts';

interface LocalOptions {
  stateDir: string;
  fresh?: boolean;
  hosts: number;
  gpuTypes: string[];
  round: number;
  port: number;
  apiPort: number;
  dashboardPort: number;
  idleMinutes: number;
  heartbeatTimeout: number;
  budget: number;
  demo: boolean;
}

export const registerLocalCommand = (program: Command): void => {
  program
    .command('local')
    .description(
      'run the local cloud: AWS-compatible endpoint, real handlers, simulated GPU hosts (npm start)',
    )
    .option('--state-dir <dir>', 'state kept across restarts', '.tessera-local')
    .option('--fresh', 'wipe the state directory first')
    .option('--hosts <n>', 'most instances the fleet may run (at least 1)', positiveInt, 4)
    .addOption(
      new Option('--gpu-types <types>', 'GPU types the fleet may launch (comma-separated)')
        .argParser(commaList)
        .default(['A10G', 'T4'], 'A10G,T4'),
    )
    .option('--round <seconds>', 'seconds between scheduled rounds', positiveNumber, 10)
    .option('--port <n>', 'port of the AWS-compatible endpoint (0 = any)', nonNegativeInt, 4566)
    .option('--api-port <n>', 'port of the API (0 = any)', nonNegativeInt, 4600)
    .option('--dashboard-port <n>', 'port of the dashboard on 127.0.0.1 (0 = any)', nonNegativeInt, 4601)
    .option('--idle-minutes <n>', 'minutes an idle instance is kept', nonNegativeInt, 5)
    .option(
      '--heartbeat-timeout <seconds>',
      'a host silent this long is lost (its jobs requeued)',
      positiveNumber,
      30,
    )
    .option('--budget <usd>', 'USD per hour the fleet may spend (on-demand list prices)', positiveNumber, 50)
    .option('--no-demo', 'do not submit the demo workload')
    .action((options: LocalOptions) => runLocalCloud(options));
};

const say = (line: string) => process.stderr.write(`${line}\n`);

/** A second stop signal this soon after the first is the same one, delivered twice (npm forwards it). */
const SAME_SIGNAL_MS = 1000;

const runLocalCloud = async (options: LocalOptions): Promise<void> => {
  let cloud: LocalCloud | undefined;
  let dashboard: Dashboard | undefined;
  let stopping: Promise<void> | undefined;
  let stopSignalAt = 0;
  const stop = (signal: string) => {
    if (stopping) {
      // One Ctrl-C under `npm start` arrives twice: from the terminal and forwarded by npm a moment later.
      if (Date.now() - stopSignalAt < SAME_SIGNAL_MS) return;
      say(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopSignalAt = Date.now();
    say(`${signal}: stopping the local cloud…`);
    stopping = Promise.all([dashboard?.stop(), cloud?.stop()]).then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  cloud = await startLocalCloud({
    stateDir: options.stateDir,
    ...(options.fresh ? { fresh: true } : {}),
    maxHosts: options.hosts,
    gpuTypes: options.gpuTypes,
    roundSeconds: options.round,
    endpointPort: options.port,
    apiPort: options.apiPort,
    idleCooldownMinutes: options.idleMinutes,
    heartbeatTimeoutSeconds: Math.ceil(options.heartbeatTimeout),
    budgetPerHour: options.budget,
    log: (line) => say(`  ${line}`),
  });
  if (stopping) return;
  if (options.demo) {
    const client = new TesseraClient({ endpoint: cloud.api.url, credentials: LOCAL_CREDENTIALS });
    const submitted = await Promise.all(demoJobs().map((job) => client.submit(job)));
    say(
      `demo workload: ${submitted.map((s) => `${s.job.name ?? s.job.jobId} (${s.created ? 'submitted' : 'already there'})`).join(', ')}`,
    );
  }
  // The dashboard calls the real API handler in-process as the local principal (the tenant of `client.env`).
  dashboard = await startDashboard({
    api: runnerApiCaller(cloud.runner, LOCAL_CREDENTIALS.accessKeyId),
    port: options.dashboardPort,
  });
  process.stdout.write(
    [
      `Tessera local cloud ready in ${process.uptime().toFixed(1)} s`,
      `  AWS endpoint: ${cloud.endpoint.url}`,
      `  API:          ${cloud.api.url}`,
      `  dashboard:    ${dashboard.url}`,
      `  state:        ${cloud.stateDir} (--fresh wipes it)`,
      '',
      'Use the CLI from another shell:',
      `  source ${cloud.stateDir}/client.env`,
      '  npx tessera jobs --watch',
      '  npx tessera cluster',
      '  npx tessera submit docs/examples/job.yaml',
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
};
