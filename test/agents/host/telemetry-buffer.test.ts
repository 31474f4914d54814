import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../agents/host/logger.ts';
import { TelemetryDeliveryError, type TelemetrySink } from '../../../agents/host/ports/telemetry-sink.ts';
import { TelemetryBuffer } from '../../../agents/host/telemetry-buffer.ts';
import type { TelemetryMessage } from '../../../lib/protocol/telemetry.ts';

const progress = (at: number): TelemetryMessage => ({
  type: 'progress',
  hostId: 'h',
  at,
  jobId: 'j',
  jobGeneration: 1,
  step: at,
  stepTime: 0.1,
  samplesPerSecond: 10,
  gpuUtilization: null,
});
const finished = (at: number): TelemetryMessage => ({
  type: 'finished',
  hostId: 'h',
  at,
  jobId: 'j',
  jobGeneration: 1,
  step: 9,
});

test('flush sends everything queued, in order', async () => {
  const sent: TelemetryMessage[][] = [];
  const buffer = new TelemetryBuffer(
    { send: async (messages) => void sent.push([...messages]) },
    silentLogger,
  );
  buffer.push(progress(1));
  buffer.push(finished(2));
  await buffer.flush();
  await buffer.flush();
  assert.deepEqual(
    sent.map((batch) => batch.map((message) => message.at)),
    [[1, 2]],
  );
  assert.equal(buffer.size, 0);
});

test('undelivered messages are kept, ahead of newer ones, for the next flush', async () => {
  let attempt = 0;
  const sent: number[][] = [];
  const sink: TelemetrySink = {
    async send(messages) {
      attempt++;
      sent.push(messages.map((message) => message.at));
      if (attempt === 1) throw new TelemetryDeliveryError('partial', [messages[1]!]);
      if (attempt === 2) throw new Error('network down');
    },
  };
  const buffer = new TelemetryBuffer(sink, silentLogger);
  buffer.push(finished(1));
  buffer.push(finished(2));
  await buffer.flush();
  buffer.push(finished(3));
  await buffer.flush();
  await buffer.flush();
  assert.deepEqual(sent, [
    [1, 2],
    [2, 3],
    [2, 3],
  ]);
  assert.equal(buffer.size, 0);
});

test('concurrent flushes never send a message twice', async () => {
  const sent: number[] = [];
  const sink: TelemetrySink = {
    async send(messages) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      sent.push(...messages.map((message) => message.at));
    },
  };
  const buffer = new TelemetryBuffer(sink, silentLogger);
  buffer.push(finished(1));
  const first = buffer.flush();
  buffer.push(finished(2));
  await Promise.all([first, buffer.flush(), buffer.flush()]);
  assert.deepEqual(sent, [1, 2]);
});

test('when full, the oldest progress messages are dropped before anything else', () => {
  const buffer = new TelemetryBuffer({ send: async () => {} }, silentLogger, 3);
  buffer.push(finished(1));
  buffer.push(progress(2));
  buffer.push(progress(3));
  buffer.push(finished(4));
  assert.equal(buffer.size, 3);
  buffer.push(finished(5));
  buffer.push(finished(6));
  assert.equal(buffer.size, 3);
});
