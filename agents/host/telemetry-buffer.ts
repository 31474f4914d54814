/**
 * Queues telemetry between flushes and keeps what could not be delivered for the next flush. Bounded:
 * when full, the oldest progress and heartbeat messages go first (newer ones supersede them), and
 * only then the oldest of anything else.
 */

import type { TelemetryMessage } from '../../lib/protocol/telemetry.ts';
import type { Logger } from './logger.ts';
import { errorMessage } from './logger.ts';
import { TelemetryDeliveryError, type TelemetrySink } from './ports/telemetry-sink.ts';

const SUPERSEDED_BY_NEWER: ReadonlySet<TelemetryMessage['type']> = new Set(['progress', 'heartbeat']);

export class TelemetryBuffer {
  private queue: TelemetryMessage[] = [];
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly sink: TelemetrySink,
    private readonly logger: Logger,
    private readonly maxQueued = 5_000,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  push(message: TelemetryMessage): void {
    this.queue.push(message);
    this.trim();
  }

  /** Sends everything queued; concurrent calls wait for the flush in progress, then flush again. */
  async flush(): Promise<void> {
    while (this.inFlight) await this.inFlight;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.inFlight = this.deliver(batch).finally(() => {
      this.inFlight = null;
    });
    await this.inFlight;
  }

  private async deliver(batch: TelemetryMessage[]): Promise<void> {
    try {
      await this.sink.send(batch);
    } catch (error) {
      const retry = error instanceof TelemetryDeliveryError ? error.undelivered : batch;
      this.logger.warn('telemetry not delivered; will retry', {
        error: errorMessage(error),
        retrying: retry.length,
      });
      this.queue = [...retry, ...this.queue];
      this.trim();
    }
  }

  private trim(): void {
    let excess = this.queue.length - this.maxQueued;
    if (excess <= 0) return;
    const dropped = excess;
    this.queue = this.queue.filter((message) => {
      if (excess > 0 && SUPERSEDED_BY_NEWER.has(message.type)) {
        excess--;
        return false;
      }
      return true;
    });
    if (excess > 0) this.queue.splice(0, excess);
    this.logger.warn('telemetry queue full; dropped oldest messages', { dropped });
  }
}
