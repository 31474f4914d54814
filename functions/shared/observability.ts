/** Powertools logger and metrics of one function (service `tessera-<kind>`, namespace `Tessera`). */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { FunctionKind } from '../../lib/aws/environment.ts';

export const METRICS_NAMESPACE = 'Tessera';

export interface Observability {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

export const createObservability = (
  kind: FunctionKind,
  given: Partial<Observability> = {},
): Observability => {
  const serviceName = `tessera-${kind}`;
  return {
    logger: given.logger ?? new Logger({ serviceName }),
    metrics: given.metrics ?? new Metrics({ namespace: METRICS_NAMESPACE, serviceName }),
  };
};

/** Adapts the Powertools logger to the `(message, details)` logger the adapters take. */
export const detailsLogger = (logger: Logger) => ({
  info: (message: string, details?: Record<string, unknown>) => logger.info(message, details ?? {}),
  warn: (message: string, details?: Record<string, unknown>) => logger.warn(message, details ?? {}),
  error: (message: string, details?: Record<string, unknown>) => logger.error(message, details ?? {}),
});
