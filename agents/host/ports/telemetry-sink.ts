/** Where telemetry goes: SQS on AWS; memory in tests; a JSON-lines stream in local mode. */
import { appendFile } from 'node:fs/promises';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';

export interface TelemetrySink {
  /** Delivers the messages or throws; a TelemetryDeliveryError names those not delivered. */
  send(messages: readonly TelemetryMessage[]): Promise<void>;
}

export class TelemetryDeliveryError extends Error {
  constructor(
    message: string,
    /** Messages worth retrying later. */
    readonly undelivered: readonly TelemetryMessage[],
  ) {
    super(message);
  }
}

export class InMemoryTelemetrySink implements TelemetrySink {
  readonly messages: TelemetryMessage[] = [];

  async send(messages: readonly TelemetryMessage[]): Promise<void> {
    this.messages.push(...structuredClone(messages));
  }

  ofType<T extends TelemetryMessage['type']>(type: T): Extract<TelemetryMessage, { type: T }>[] {
    return this.messages.filter(
      (message): message is Extract<TelemetryMessage, { type: T }> => message.type === type,
    );
  }
}

/** Appends one JSON object per line to a file, or writes them to stdout when no path is given. */
export class JsonLinesTelemetrySink implements TelemetrySink {
  constructor(private readonly path: string | null) {}

  async send(messages: readonly TelemetryMessage[]): Promise<void> {
    const text = messages.map((message) => `${JSON.stringify(message)}\n`).join('');
    if (this.path === null) process.stdout.write(text);
    else await appendFile(this.path, text);
  }
}
