/**
 * What every handler is built from: its environment (validated), AWS clients, the repositories over its tables,
 * a clock and Powertools logger/metrics. Handlers export `create…Handler(deps)` so the local runner and tests can
 * build them with their own environment and clients; the Lambda entry point builds them from `process.env` on
 * first use.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { type AwsClients, clientOptionsFromEnv, createAwsClients } from '../../lib/aws/clients.ts';
import {
  type Env,
  type FunctionEnv,
  type FunctionKind,
  readFunctionEnv,
  tableNames,
} from '../../lib/aws/environment.ts';
import { epochSecondsNow } from '../../lib/aws/items/epoch-seconds.ts';
import { HostsRepository } from '../../lib/aws/repositories/hosts-repository.ts';
import { JobsRepository } from '../../lib/aws/repositories/jobs-repository.ts';
import { ProfilesRepository } from '../../lib/aws/repositories/profiles-repository.ts';
import { SchedulerStateRepository } from '../../lib/aws/repositories/scheduler-state-repository.ts';
import { createObservability } from './observability.ts';

export interface HandlerOptions {
  readonly env: Env;
  readonly clients?: AwsClients;
  /** Epoch seconds (default: the wall clock). */
  readonly clock?: () => number;
  readonly logger?: Logger;
  readonly metrics?: Metrics;
}

export interface FunctionDeps<K extends FunctionKind> {
  readonly env: FunctionEnv<K>;
  readonly clients: AwsClients;
  /** Epoch seconds: every time a handler writes is in seconds (lib/aws/items/epoch-seconds.ts). */
  readonly clock: () => number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly jobs: JobsRepository;
  readonly hosts: HostsRepository;
  readonly profiles: ProfilesRepository;
  readonly state: SchedulerStateRepository;
}

export const functionDeps = <K extends FunctionKind>(kind: K, options: HandlerOptions): FunctionDeps<K> => {
  const env = readFunctionEnv(kind, options.env);
  const clients = options.clients ?? createAwsClients(clientOptionsFromEnv(options.env));
  const names = tableNames(env as Record<string, unknown>);
  const observability = createObservability(kind, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  return {
    env,
    clients,
    clock: options.clock ?? epochSecondsNow,
    ...observability,
    jobs: new JobsRepository(clients.dynamodb, names.jobs),
    hosts: new HostsRepository(clients.dynamodb, names.hosts, names.hostArnPrefix),
    profiles: new ProfilesRepository(clients.dynamodb, names.profiles),
    state: new SchedulerStateRepository(clients.dynamodb, names.state),
  };
};

/** A Lambda entry point that builds its handler from `process.env` on the first invocation. */
export const lazyHandler = <E, C, R>(build: () => (event: E, context: C) => Promise<R>) => {
  let handler: ((event: E, context: C) => Promise<R>) | undefined;
  return (event: E, context: C): Promise<R> => {
    handler ??= build();
    return handler(event, context);
  };
};
