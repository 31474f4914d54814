/**
 * The round function: triggered by the EventBridge schedule and by batches of `scheduler-events.fifo` messages
 * (arrivals, completions, host losses). Either way it runs one round (see lib/aws/round/run-round.ts); a round
 * that fails throws, so a queue batch is retried and the error is counted (the stack alarms on it).
 *
 * Performance data: the bundle carries the Gavel, Pollux and Blox tables under `data/` (copied at synth time)
 * and `TESSERA_DATA_DIR` points at them. When they were not available at synth time the round runs on the
 * analytic model and logs a warning on every cold start.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { STSClient } from '@aws-sdk/client-sts';
import middy from '@middy/core';
import type { Context, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { clientOptionsFromEnv, RETRY } from '../../lib/aws/clients.ts';
import { StsCredentialVendor } from '../../lib/aws/credentials/credential-vendor.ts';
import { dataAccessSettings } from '../../lib/aws/credentials/vend-host-credentials.ts';
import { ENV } from '../../lib/aws/environment.ts';
import { Ec2Fleet } from '../../lib/aws/fleet/ec2-fleet.ts';
import { QueueSnapshotRepository } from '../../lib/aws/repositories/queue-snapshot-repository.ts';
import { TenantSummaryRepository } from '../../lib/aws/repositories/tenant-summary-repository.ts';
import { QueuePersister } from '../../lib/aws/round/queue-persister.ts';
import { QueueView } from '../../lib/aws/round/queue-view.ts';
import { type RoundReport, runRound } from '../../lib/aws/round/run-round.ts';
import { RoundMemo } from '../../lib/core/framework/round-memo.ts';
import { getPolicy } from '../../lib/core/policies.ts';
import { loadDefaultPerfModel } from '../../lib/data/perf.ts';
import { functionDeps, type HandlerOptions, lazyHandler } from '../shared/function-deps.ts';
import { detailsLogger } from '../shared/observability.ts';

/** The lease outlives the invocation by this much, in case the clock of the next one runs a little ahead. */
export const LEASE_MARGIN_SECONDS = 10;
const DEFAULT_LEASE_SECONDS = 120;

export type RoundTrigger = ScheduledEvent | SQSEvent;

export const createRoundHandler = (options: HandlerOptions & { dataDir?: string }) => {
  const deps = functionDeps('round', options);
  const log = detailsLogger(deps.logger);
  const policy = getPolicy(deps.env[ENV.policy]);
  const perf = loadDefaultPerfModel({
    ...(options.dataDir
      ? { dataDir: options.dataDir }
      : options.env.TESSERA_DATA_DIR
        ? { dataDir: options.env.TESSERA_DATA_DIR }
        : {}),
    onWarning: (message) => deps.logger.warn(message),
  });
  const fleet = new Ec2Fleet(deps.clients.ec2);
  // STS with the function's own identity (the same provider its DynamoDB client signs with).
  const dataAccess = dataAccessSettings(
    deps.env[ENV.hostDataRoleArn],
    deps.env[ENV.checkpointRoot],
    (roleArn) =>
      new StsCredentialVendor(
        new STSClient({
          ...RETRY,
          ...clientOptionsFromEnv(options.env),
          credentials: deps.clients.dynamodb.config.credentials,
        }),
        roleArn,
      ),
  );
  const tenantSummary = new TenantSummaryRepository(deps.clients.dynamodb, deps.state.tableName);
  // The queue view lives as long as this handler (a warm Lambda container): a round reads only what changed.
  const queuePersister = new QueuePersister(
    new QueueSnapshotRepository(deps.clients.dynamodb, deps.state.tableName),
  );
  const queue = new QueueView({ jobs: deps.jobs, loadSnapshot: () => queuePersister.load() });
  // So does the core's memo of derived data (lib/core/framework/round-memo.ts): warm or cold, the same plan.
  const memo = new RoundMemo();

  return middy<RoundTrigger, RoundReport, Error, Context>()
    .use(injectLambdaContext(deps.logger))
    .use(logMetrics(deps.metrics))
    .handler(async (event, context) => {
      const trigger = 'Records' in event ? `${event.Records.length} scheduler event(s)` : 'schedule';
      const started = deps.clock();
      const remaining =
        typeof context.getRemainingTimeInMillis === 'function'
          ? context.getRemainingTimeInMillis() / 1000
          : DEFAULT_LEASE_SECONDS;
      const report = await runRound(
        {
          dynamodb: deps.clients.dynamodb,
          jobs: deps.jobs,
          hosts: deps.hosts,
          profiles: deps.profiles,
          state: deps.state,
          fleet,
          ...(dataAccess ? { dataAccess } : {}),
          clock: deps.clock,
          log,
          queue,
          tenantSummary,
          queuePersister,
          memo,
        },
        {
          clusterName: deps.env[ENV.clusterName],
          policy,
          perf,
          roundSeconds: deps.env[ENV.roundSeconds],
          checkpointRoot: deps.env[ENV.checkpointRoot],
          fleet: deps.env[ENV.fleet],
          holder: context.awsRequestId,
          leaseSeconds: remaining + LEASE_MARGIN_SECONDS,
          // A full read of a long queue gets at most 40 % of the invocation; it goes on in the next round.
          queueReadSeconds: Math.min(20, 0.4 * remaining),
        },
      );
      const m = deps.metrics;
      if (report.outcome === 'skipped') {
        m.addMetric('RoundsSkipped', 'Count', 1);
        deps.logger.info('round skipped: lease held', { trigger });
        return report;
      }
      m.addMetric('RoundsCompleted', 'Count', 1);
      m.addMetric('RoundDuration', 'Seconds', deps.clock() - started);
      m.addMetric('WriteConflicts', 'Count', report.conflicts.length);
      m.addMetric('InstancesLaunched', 'Count', report.launched.length);
      m.addMetric('InstancesTerminated', 'Count', report.terminated.length);
      m.addMetric('CapacityErrors', 'Count', report.capacityErrors.length);
      m.addMetric('UnschedulableJobs', 'Count', report.unschedulable);
      m.addMetric('QueuedJobs', 'Count', report.queued ?? 0);
      m.addMetric('QueueItemsRead', 'Count', report.queueItemsRead ?? 0);
      for (const [kind, count] of Object.entries(report.actions))
        m.addMetric(`Actions_${kind}`, 'Count', count);
      deps.logger.info('round finished', { trigger, round: report.round });
      return report;
    });
};

export const handler = lazyHandler(() => createRoundHandler({ env: process.env }));
