import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { coalesceTelemetry } from '../../../../lib/aws/telemetry/coalesce.ts';
import type { TelemetryMessage } from '../../../../lib/protocol/telemetry.ts';

const progress = (jobId: string, step: number, at: number): TelemetryMessage => ({
  type: 'progress',
  hostId: 'h',
  at,
  jobId,
  jobGeneration: 1,
  step,
  stepTime: 0.5,
  samplesPerSecond: 100,
  gpuUtilization: 90,
});
const heartbeat = (hostId: string, at: number): TelemetryMessage => ({
  type: 'heartbeat',
  hostId,
  at,
  appliedGeneration: 1,
  draining: false,
  evacuating: null,
  gpus: [],
  jobs: [],
});

describe('coalesceTelemetry', () => {
  test('one write per host heartbeat and per job progress, remembering every record served', () => {
    const writes = coalesceTelemetry([
      { recordId: 'r1', message: heartbeat('h1', 5) },
      { recordId: 'r2', message: progress('a', 10, 1) },
      { recordId: 'r3', message: heartbeat('h1', 9) },
      { recordId: 'r4', message: progress('a', 30, 2) },
      { recordId: 'r5', message: progress('a', 20, 3) },
      {
        recordId: 'r6',
        message: { type: 'finished', hostId: 'h1', at: 4, jobId: 'a', jobGeneration: 1, step: 30 },
      },
    ]);
    assert.deepEqual(
      writes.heartbeats.map((h) => [h.hostId, h.latest.at, h.recordIds]),
      [['h1', 9, ['r1', 'r3']]],
    );
    assert.deepEqual(
      writes.progress.map((p) => [p.jobId, p.latest.step, p.samples.length, p.recordIds]),
      [['a', 30, 3, ['r2', 'r4', 'r5']]],
    );
    assert.deepEqual(
      writes.events.map((e) => [e.recordId, e.message.type]),
      [['r6', 'finished']],
    );
  });
});
