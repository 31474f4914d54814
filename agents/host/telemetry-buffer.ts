/**
 * Queues telemetry between flushes and keeps what could not be delivered for the next flush. Bounded:
 * when full, the oldest progress and heartbeat messages go first (newer ones supersede them), and
 * only then the oldest of anything else. With an outbox file, everything not yet delivered (queued or in
 * flight) is also on disk, written atomically on every change, and a restarted agent sends it first: a
 * `finished` report of an agent killed before its flush is not lost.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

import { type TelemetryMessage, telemetryMessageSchema } from '../../lib/protocol/telemetry.ts';
import type { Logger } from './logger.ts';
import { errorMessage } from './logger.ts';
import { TelemetryDeliveryError, type TelemetrySink } from './ports/telemetry-sink.ts';

const SUPERSEDED_BY_NEWER: ReadonlySet<TelemetryMessage['type']> = new Set(['progress', 'heartbeat']);

/** Told of every send that delivered its whole batch, with the time it began (proof of contact: ../fence.ts). */
export interface DeliveryListener {
  now(): number;
  delivered(batch: readonly TelemetryMessage[], startedAt: number): void;
}

export class TelemetryBuffer {
  private queue: TelemetryMessage[] = [];
  private sending: TelemetryMessage[] = [];
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly sink: TelemetrySink,
    private readonly logger: Logger,
    private readonly maxQueued = 5_000,
    private readonly outboxPath: string | null = null,
    private readonly listener: DeliveryListener | null = null,
  ) {}

  /** The previous agent's undelivered reports, read once, before anything new (an agent may be built early). */
  private loaded = false;
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (this.outboxPath) this.queue = [...loadOutbox(this.outboxPath, this.logger), ...this.queue];
  }

  get size(): number {
    this.load();
    return this.queue.length;
  }

  push(message: TelemetryMessage): void {
    this.load();
    this.queue.push(message);
    this.trim();
    this.save();
  }

  /** Sends everything queued; concurrent calls wait for the flush in progress, then flush again. */
  async flush(): Promise<void> {
    this.load();
    while (this.inFlight) await this.inFlight;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.sending = batch;
    this.inFlight = this.deliver(batch).finally(() => {
      this.sending = [];
      this.inFlight = null;
      this.save();
    });
    await this.inFlight;
  }

  private async deliver(batch: TelemetryMessage[]): Promise<void> {
    const startedAt = this.listener?.now() ?? 0;
    try {
      await this.sink.send(batch);
      this.listener?.delivered(batch, startedAt);
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

  /** Everything not yet delivered, to disk (temporary file + rename, so a crash never leaves half a file). */
  private save(): void {
    if (!this.outboxPath) return;
    try {
      mkdirSync(dirname(this.outboxPath), { recursive: true });
      const temporary = `${this.outboxPath}.tmp`;
      writeFileSync(temporary, JSON.stringify([...this.sending, ...this.queue]));
      renameSync(temporary, this.outboxPath);
    } catch (error) {
      this.logger.warn('could not write the telemetry outbox', { error: errorMessage(error) });
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

const outboxSchema = z.array(z.unknown());

function loadOutbox(path: string, logger: Logger): TelemetryMessage[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return []; // no outbox yet
  }
  try {
    const entries = outboxSchema.parse(JSON.parse(text));
    const messages = entries.flatMap((entry) => {
      const parsed = telemetryMessageSchema.safeParse(entry);
      return parsed.success ? [parsed.data] : [];
    });
    if (messages.length < entries.length)
      logger.warn('telemetry outbox held malformed entries; dropped', {
        dropped: entries.length - messages.length,
      });
    if (messages.length > 0)
      logger.info('resending telemetry from the outbox', { messages: messages.length });
    return messages;
  } catch (error) {
    logger.warn('telemetry outbox unreadable; starting empty', { path, error: errorMessage(error) });
    return [];
  }
}
