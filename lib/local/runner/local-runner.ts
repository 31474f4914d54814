/**
 * Runs Tessera's Lambda handlers in-process against an AWS-compatible endpoint (the local endpoint or
 * LocalStack), wired as the synthesized template wires them: SQS event source mappings (batch size, batching
 * window, visibility timeout, partial batch failures, DLQ redrive by the queue), EventBridge rules (deliveries
 * from the local endpoint's bus, with the target's retries and DLQ) and schedules. Each function gets the
 * environment the template gives it, resolved to the local resources, plus `AWS_ENDPOINT_URL`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { createApiHandler } from '../../../functions/api/handler.ts';
import { createFleetEventsHandler } from '../../../functions/fleet-events/handler.ts';
import { createIngestHandler } from '../../../functions/ingest/handler.ts';
import { createRoundHandler } from '../../../functions/round/handler.ts';
import type { HandlerOptions } from '../../../functions/shared/function-deps.ts';
import { METRICS_NAMESPACE } from '../../../functions/shared/observability.ts';
import { createTelemetryHandler } from '../../../functions/telemetry/handler.ts';
import type { AwsClients } from '../../aws/clients.ts';
import { ENV, type FunctionKind } from '../../aws/environment.ts';
import { resolveDataDir } from '../../data/data-dir.ts';
import type { LocalEventBus } from '../endpoint/events/bus.ts';
import { nextFireTime, parseScheduleExpression } from '../endpoint/events/schedule.ts';
import type { EventDelivery } from '../endpoint/events/types.ts';
import type { CfnTemplate, TemplateResources } from '../endpoint/template/create-resources.ts';
import { lambdaContext, scheduledEvent } from './lambda-events.ts';
import { SqsEventSource } from './sqs-event-source.ts';
import {
  type LocalFunction,
  resolveTemplateFunctions,
  type TemplateFunctions,
} from './template-functions.ts';

// biome-ignore lint/suspicious/noExplicitAny: handlers of different event types share one table
type AnyHandler = (event: any, context: any) => Promise<unknown>;
export type HandlerFactory = (options: HandlerOptions) => AnyHandler;

export const HANDLER_FACTORIES: Readonly<Record<FunctionKind, HandlerFactory>> = {
  api: createApiHandler,
  ingest: createIngestHandler,
  round: createRoundHandler,
  telemetry: createTelemetryHandler,
  'fleet-events': createFleetEventsHandler,
};

export interface LocalRunnerOptions {
  readonly template: CfnTemplate;
  readonly resources: TemplateResources;
  readonly endpoint: string;
  readonly region: string;
  readonly accountId: string;
  readonly clients: AwsClients;
  /** Variables set (or replaced) per function, e.g. a `file://` checkpoint root instead of the S3 bucket. */
  readonly envOverrides?: Partial<Record<FunctionKind | 'all', Readonly<Record<string, string>>>>;
  /** The handlers' clock, epoch seconds (default: the wall clock). */
  readonly clock?: () => number;
  /** Powertools log level of the handlers; default WARN. */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** Overrides queue visibility timeouts on receive (tests use a second or two). */
  readonly visibilityTimeoutSeconds?: number;
  /** Caps batching windows (the telemetry mapping waits 20 s in AWS). */
  readonly maxBatchingWindowMs?: number;
  /** Replaces handler factories (tests inject failures). */
  readonly factories?: Partial<Record<FunctionKind, HandlerFactory>>;
  readonly onError?: (kind: FunctionKind, error: unknown) => void;
}

export interface Invocation {
  readonly kind: FunctionKind;
  readonly ok: boolean;
  readonly error?: string;
  readonly ms: number;
}

const ignore = () => {};
const SILENT = { trace: ignore, debug: ignore, info: ignore, warn: ignore, error: ignore };

export class FunctionTimeoutError extends Error {
  override readonly name = 'FunctionTimeoutError';
}

export class LocalLambdaRunner {
  readonly definitions: TemplateFunctions;
  readonly invocations: Invocation[] = [];
  private readonly byKind = new Map<FunctionKind, LocalFunction>();
  private readonly handlers = new Map<FunctionKind, AnyHandler>();
  private readonly sources: SqsEventSource[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly unsubscribe: (() => void)[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly options: LocalRunnerOptions) {
    this.definitions = resolveTemplateFunctions(options.template, options.resources, {
      region: options.region,
      accountId: options.accountId,
    });
    for (const fn of this.definitions.functions) this.byKind.set(fn.kind, fn);
    // EMF metrics would go to stdout on every invocation; locally they are off unless asked for.
    process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  }

  function(kind: FunctionKind): LocalFunction {
    const fn = this.byKind.get(kind);
    if (!fn) throw new Error(`the template has no ${kind} function (${ENV.functionKind}=${kind})`);
    return fn;
  }

  /** The environment the function runs with locally. */
  environment(kind: FunctionKind): Record<string, string> {
    const fn = this.function(kind);
    const overrides = { ...this.options.envOverrides?.all, ...this.options.envOverrides?.[kind] };
    const missing = fn.unresolved.filter((name) => overrides[name] === undefined);
    if (missing.length > 0) {
      throw new Error(
        `${kind} function: environment variable(s) ${missing.join(', ')} reference resources that are not emulated locally; give them in envOverrides`,
      );
    }
    return {
      ...fn.env,
      TESSERA_DATA_DIR: resolveDataDir(),
      ...overrides,
      [ENV.endpoint]: this.options.endpoint,
      [ENV.region]: this.options.region,
    };
  }

  private handler(kind: FunctionKind): AnyHandler {
    let handler = this.handlers.get(kind);
    if (!handler) {
      const factory = this.options.factories?.[kind] ?? HANDLER_FACTORIES[kind];
      handler = factory({
        env: this.environment(kind),
        clients: this.options.clients,
        ...(this.options.clock ? { clock: this.options.clock } : {}),
        logger: new Logger({ serviceName: `tessera-${kind}`, logLevel: this.options.logLevel ?? 'WARN' }),
        // Powertools warns on stdout when an invocation records no metric; locally that is noise.
        metrics: new Metrics({
          namespace: METRICS_NAMESPACE,
          serviceName: `tessera-${kind}`,
          logger: SILENT,
        }),
      });
      this.handlers.set(kind, handler);
    }
    return handler;
  }

  /** Invokes a function with an event, under its timeout, as Lambda would. */
  async invoke<R = unknown>(kind: FunctionKind, event: unknown): Promise<R> {
    const fn = this.function(kind);
    const handler = this.handler(kind);
    const timeoutMs = fn.timeoutSeconds * 1000;
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const run = handler(event, lambdaContext(fn, timeoutMs));
    this.inFlight.add(run);
    try {
      const result = await Promise.race([
        run,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(
            () => reject(new FunctionTimeoutError(`${fn.name} timed out after ${fn.timeoutSeconds} s`)),
            timeoutMs,
          );
        }),
      ]);
      this.invocations.push({ kind, ok: true, ms: Date.now() - started });
      return result as R;
    } catch (error) {
      this.invocations.push({ kind, ok: false, error: String(error), ms: Date.now() - started });
      throw error;
    } finally {
      clearTimeout(timer);
      run.then(
        () => this.inFlight.delete(run),
        () => this.inFlight.delete(run),
      );
    }
  }

  /** Starts polling every SQS event source mapping of the template. */
  startEventSources(kinds?: readonly FunctionKind[]): void {
    for (const mapping of this.definitions.eventSourceMappings) {
      if (!mapping.enabled) continue;
      const fn = this.definitions.functions.find((f) => f.name === mapping.functionName);
      if (!fn || (kinds && !kinds.includes(fn.kind))) continue;
      const queue = Object.values(this.options.resources.resources).find((r) => r.arn === mapping.queueArn);
      if (!queue?.url)
        throw new Error(`event source ${mapping.logicalId}: no local queue with ARN ${mapping.queueArn}`);
      const source = new SqsEventSource({
        sqs: this.options.clients.sqs,
        queueUrl: queue.url,
        queueArn: mapping.queueArn,
        region: this.options.region,
        batchSize: mapping.batchSize,
        batchingWindowMs: Math.min(
          mapping.maximumBatchingWindowSeconds * 1000,
          this.options.maxBatchingWindowMs ?? Number.POSITIVE_INFINITY,
        ),
        reportBatchItemFailures: mapping.reportBatchItemFailures,
        ...(this.options.visibilityTimeoutSeconds !== undefined
          ? { visibilityTimeoutSeconds: this.options.visibilityTimeoutSeconds }
          : {}),
        invoke: (event) => this.invoke(fn.kind, event),
        onError: (error) => this.options.onError?.(fn.kind, error),
      });
      source.start();
      this.sources.push(source);
    }
  }

  /** Resolves when no event source is processing a batch. */
  async eventSourcesIdle(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.whenIdle()));
  }

  /**
   * Delivers the local endpoint's EventBridge deliveries whose target is one of the functions: up to
   * 1 + MaximumRetryAttempts attempts, then the target's DLQ (with the error as a message attribute).
   */
  attachEventBus(bus: LocalEventBus): void {
    const byArn = new Map(this.definitions.functions.map((f) => [f.arn, f]));
    this.unsubscribe.push(
      bus.subscribe(async (delivery: EventDelivery) => {
        const fn = byArn.get(delivery.target.Arn);
        if (!fn || this.stopped) return;
        await this.deliver(
          fn,
          delivery.input,
          delivery.target.RetryPolicy?.MaximumRetryAttempts,
          delivery.target.DeadLetterConfig?.Arn,
        );
      }),
    );
  }

  /**
   * Fires the template's schedule rules on time: through the bus when one is given (so rule state and targets
   * apply), else by invoking the target with a built Scheduled Event (LocalStack, where the runner has no bus).
   */
  startSchedules(bus?: LocalEventBus): void {
    const scheduled = this.definitions.ruleTargets.filter((t) => t.scheduleExpression);
    for (const target of scheduled) {
      const schedule = parseScheduleExpression(target.scheduleExpression!);
      const anchor = Date.now();
      const arm = (after: number) => {
        if (this.stopped) return;
        const at = nextFireTime(schedule, after, anchor);
        if (at === undefined) return;
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            if (bus) bus.fireSchedule(target.ruleName, at);
            else {
              const fn = this.definitions.functions.find((f) => f.arn === target.functionArn);
              const ruleArn = `arn:aws:events:${this.options.region}:${this.options.accountId}:rule/${target.ruleName}`;
              if (fn)
                void this.deliver(
                  fn,
                  scheduledEvent(ruleArn, this.options.region, this.options.accountId, at),
                  target.maximumRetryAttempts,
                  target.deadLetterArn,
                );
            }
            arm(at);
          },
          Math.max(0, at - Date.now()),
        );
        timer.unref();
        this.timers.add(timer);
      };
      arm(anchor);
    }
  }

  private async deliver(
    fn: LocalFunction,
    event: unknown,
    retries: number | undefined,
    dlqArn: string | undefined,
  ) {
    const attempts = 1 + Math.min(retries ?? 2, 2);
    let lastError: unknown;
    for (let attempt = 0; attempt < attempts && !this.stopped; attempt++) {
      try {
        await this.invoke(fn.kind, event);
        return;
      } catch (error) {
        lastError = error;
        this.options.onError?.(fn.kind, error);
      }
    }
    if (lastError !== undefined && dlqArn) await this.sendToDlq(dlqArn, event, lastError);
  }

  private async sendToDlq(arn: string, event: unknown, error: unknown): Promise<void> {
    const queue = Object.values(this.options.resources.resources).find((r) => r.arn === arn);
    if (!queue?.url) return;
    await (this.options.clients.sqs as SQSClient).send(
      new SendMessageCommand({
        QueueUrl: queue.url,
        MessageBody: JSON.stringify(event),
        MessageAttributes: {
          ERROR_MESSAGE: { DataType: 'String', StringValue: String(error).slice(0, 1000) },
        },
      }),
    );
  }

  /** Stops pollers and timers and waits for invocations under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    await Promise.all(this.sources.map((s) => s.stop()));
    await Promise.allSettled([...this.inFlight]);
  }
}
