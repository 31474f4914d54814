/**
 * The five Lambda functions (Node 22, arm64), bundled from functions/<kind>/handler.ts by the local esbuild as ES
 * modules — never Docker. Each gets only the environment variables it reads (lib/aws/environment.ts) and a
 * log group with a retention. The round bundle also carries the performance data tables (see ./perf-data.ts).
 */
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../functions/shared/observability.ts';
import { ENV, FUNCTION_KINDS, type FunctionKind } from '../aws/environment.ts';
import { LAMBDA_DATA_DIR, roundBundleCommands } from './perf-data.ts';

export interface FunctionSettings {
  readonly timeout: Duration;
  readonly memoryMiB: number;
}

/** Timeouts and memory per function: the round loads the perf tables and schedules; the rest move items. */
export const FUNCTION_SETTINGS: Readonly<Record<FunctionKind, FunctionSettings>> = {
  api: { timeout: Duration.seconds(10), memoryMiB: 512 },
  ingest: { timeout: Duration.seconds(30), memoryMiB: 512 },
  round: { timeout: Duration.seconds(50), memoryMiB: 1769 },
  telemetry: { timeout: Duration.seconds(30), memoryMiB: 512 },
  'fleet-events': { timeout: Duration.seconds(30), memoryMiB: 256 },
};

export interface TesseraFunctionsProps {
  readonly repositoryRoot: string;
  /** Environment per function, beyond what every function gets. */
  readonly environment: Readonly<Record<FunctionKind, Readonly<Record<string, string>>>>;
  /** Where the performance data is at synth time; absent or missing = the round uses the analytic model. */
  readonly perfDataDir?: string;
}

// Some bundled CommonJS dependencies call require() for Node built-ins, which an ES module bundle lacks.
const REQUIRE_BANNER =
  "import { createRequire as __tesseraCreateRequire } from 'node:module'; const require = __tesseraCreateRequire(import.meta.url);";

export class TesseraFunctions extends Construct {
  readonly functions: Record<FunctionKind, NodejsFunction>;

  constructor(scope: Construct, id: string, props: TesseraFunctionsProps) {
    super(scope, id);
    const entries = FUNCTION_KINDS.map((kind) => {
      const settings = FUNCTION_SETTINGS[kind];
      const name = pascal(kind);
      const fn = new NodejsFunction(this, name, {
        description: `Tessera ${kind} handler`,
        entry: join(props.repositoryRoot, 'functions', kind, 'handler.ts'),
        handler: 'handler',
        projectRoot: props.repositoryRoot,
        depsLockFilePath: join(props.repositoryRoot, 'package-lock.json'),
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        timeout: settings.timeout,
        memorySize: settings.memoryMiB,
        logGroup: new LogGroup(this, `${name}Logs`, { retention: RetentionDays.ONE_MONTH }),
        environment: {
          [ENV.functionKind]: kind,
          POWERTOOLS_SERVICE_NAME: `tessera-${kind}`,
          POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
          NODE_OPTIONS: '--enable-source-maps',
          ...(kind === 'round' ? { TESSERA_DATA_DIR: LAMBDA_DATA_DIR } : {}),
          ...props.environment[kind],
        },
        bundling: {
          forceDockerBundling: false,
          format: OutputFormat.ESM,
          target: 'node22',
          platform: 'node',
          mainFields: ['module', 'main'],
          banner: REQUIRE_BANNER,
          minify: true,
          sourceMap: true,
          ...(kind === 'round'
            ? {
                commandHooks: {
                  beforeBundling: () => [],
                  beforeInstall: () => [],
                  afterBundling: (_input: string, output: string) =>
                    roundBundleCommands(props.perfDataDir, output),
                },
              }
            : {}),
        },
      });
      return [kind, fn] as const;
    });
    this.functions = Object.fromEntries(entries) as Record<FunctionKind, NodejsFunction>;
  }
}

const pascal = (kind: string) =>
  kind
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
