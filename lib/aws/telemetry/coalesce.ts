/**
 * Groups one SQS batch of agent telemetry into the writes it needs (pure): the newest heartbeat per host and
 * the furthest progress per job and host collapse into one write each, however many reports the batch holds; the other
 * messages (registration, checkpoints, completions, failures, Spot notices) are applied one by one, in order.
 * Each write remembers which records it serves, so a failed write fails exactly those records.
 */
import type { TelemetryMessage, TelemetryOf } from '../../protocol/telemetry.ts';

export interface Received<T extends TelemetryMessage = TelemetryMessage> {
  readonly recordId: string;
  readonly message: T;
}

export interface ProgressUpdate {
  readonly jobId: string;
  /** The host that reported: progress is grouped per job and host, so a claim can be checked against its sender. */
  readonly hostId: string;
  /** The report with the highest step (the newest on ties). */
  readonly latest: TelemetryOf<'progress'>;
  /** Every progress report of the job in the batch: each is a throughput sample. */
  readonly samples: readonly TelemetryOf<'progress'>[];
  readonly recordIds: readonly string[];
}

export interface HeartbeatUpdate {
  readonly hostId: string;
  readonly latest: TelemetryOf<'heartbeat'>;
  readonly recordIds: readonly string[];
}

export type EventMessage = Exclude<TelemetryMessage, { type: 'heartbeat' | 'progress' }>;

export interface TelemetryWrites {
  /** Applied first, in arrival order (a `finished` after a `checkpointed` of the same job must stay after it). */
  readonly events: readonly Received<EventMessage>[];
  readonly heartbeats: readonly HeartbeatUpdate[];
  readonly progress: readonly ProgressUpdate[];
}

export const coalesceTelemetry = (received: readonly Received[]): TelemetryWrites => {
  const events: Received<EventMessage>[] = [];
  const heartbeats = new Map<string, { latest: TelemetryOf<'heartbeat'>; recordIds: string[] }>();
  const progress = new Map<
    string,
    { latest: TelemetryOf<'progress'>; samples: TelemetryOf<'progress'>[]; recordIds: string[] }
  >();
  for (const { recordId, message } of received) {
    if (message.type === 'heartbeat') {
      const entry = heartbeats.get(message.hostId);
      if (!entry) heartbeats.set(message.hostId, { latest: message, recordIds: [recordId] });
      else {
        entry.recordIds.push(recordId);
        if (message.at >= entry.latest.at) entry.latest = message;
      }
    } else if (message.type === 'progress') {
      const key = `${message.jobId}\0${message.hostId}`;
      const entry = progress.get(key);
      if (!entry) progress.set(key, { latest: message, samples: [message], recordIds: [recordId] });
      else {
        entry.recordIds.push(recordId);
        entry.samples.push(message);
        if (
          message.step > entry.latest.step ||
          (message.step === entry.latest.step && message.at >= entry.latest.at)
        )
          entry.latest = message;
      }
    } else {
      events.push({ recordId, message });
    }
  }
  return {
    events,
    heartbeats: [...heartbeats].map(([hostId, e]) => ({ hostId, ...e })),
    progress: [...progress.values()].map((e) => ({ jobId: e.latest.jobId, hostId: e.latest.hostId, ...e })),
  };
};
