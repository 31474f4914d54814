// The local AWS-compatible endpoint as a process:
//   node --import tsx lib/local/endpoint/main.ts --port 4566 [--data-dir DIR] [--template FILE]
// Prints the URL, then serves until SIGINT/SIGTERM, when it stops DynamoDB Local and exits.
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Command, InvalidArgumentError } from 'commander';
import { startLocalEndpoint } from './server.ts';
import { createResourcesFromTemplate } from './template/create-resources.ts';

function portNumber(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535 (0 = any free port)');
  return port;
}

function nonNegativeMs(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number of milliseconds');
  return Number(value);
}

interface CliOptions {
  port: number;
  host: string;
  region: string;
  dataDir?: string;
  template?: string;
  stackName: string;
  ec2PendingMs?: number;
  verbose?: boolean;
}

const program = new Command()
  .name('local-endpoint')
  .description(
    'LocalStack-style AWS endpoint: DynamoDB (DynamoDB Local), SQS (fauxqs), S3 (s3rver), EC2 and EventBridge shims',
  )
  .option('--port <port>', 'port to listen on (0 = any free port)', portNumber, 4566)
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--region <region>', 'AWS region reported in ARNs and zones', 'us-east-1')
  .option('--data-dir <dir>', 'persist state in this directory (default: in memory)')
  .option(
    '--template <file>',
    'create the tables, queues, rules, launch templates and buckets of this synthesized CloudFormation template',
  )
  .option('--stack-name <name>', 'stack name for generated resource names', 'tessera')
  .option('--ec2-pending-ms <ms>', 'how long launched instances stay pending', nonNegativeMs)
  .option('--verbose', 'log template notes and listener failures')
  .parse();

const options = program.opts<CliOptions>();
const log = (line: string) => process.stderr.write(`${line}\n`);

const endpoint = await startLocalEndpoint({
  port: options.port,
  host: options.host,
  region: options.region,
  ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  ...(options.ec2PendingMs !== undefined ? { ec2: { pendingMs: options.ec2PendingMs } } : {}),
  ...(options.verbose ? { log } : {}),
}).catch((error: Error) => {
  log(`local endpoint failed to start: ${error.message}`);
  process.exit(1);
});

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping local endpoint`);
  endpoint.stop().then(
    () => process.exit(0),
    (error: Error) => {
      log(`stop failed: ${error.message}`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));

if (options.template) {
  const config = {
    endpoint: endpoint.url,
    region: endpoint.region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  };
  try {
    const template = JSON.parse(readFileSync(options.template, 'utf8')) as unknown;
    const result = await createResourcesFromTemplate(
      template,
      {
        dynamodb: new DynamoDBClient(config),
        sqs: new SQSClient(config),
        ec2: new EC2Client(config),
        s3: new S3Client({ ...config, forcePathStyle: true }),
        events: endpoint.events,
      },
      { stackName: options.stackName, region: endpoint.region, ...(options.verbose ? { log } : {}) },
    );
    for (const [logicalId, r] of Object.entries(result.resources)) {
      log(`  ${r.type.padEnd(26)} ${logicalId} → ${r.url ?? r.id ?? r.name}`);
    }
    if (result.skipped.length > 0)
      log(`  skipped: ${result.skipped.map((s) => `${s.logicalId} (${s.type})`).join(', ')}`);
  } catch (error) {
    log(`template ${options.template}: ${(error as Error).message}`);
    await endpoint.stop();
    process.exit(1);
  }
}

process.stdout.write(`${endpoint.url}\n`);
log(
  `local AWS endpoint ready on ${endpoint.url} (DynamoDB Local pid ${endpoint.dynamodbLocal.pid}); ` +
    `use AWS_ENDPOINT_URL=${endpoint.url} with any credentials; Ctrl-C to stop`,
);
