import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ThroughputMeter } from '../../bench/cluster-throughput.ts';
import type { JobRecord } from '../../lib/sim/simulator.ts';

const record = (id: string, finishTime?: number) =>
  ({ id, ...(finishTime !== undefined ? { finishTime } : {}) }) as JobRecord;

describe('cluster throughput meter', () => {
  test('Σ rate ÷ reference over time, restart pauses excluded, averaged over the window', () => {
    const meter = new ThroughputMeter(
      new Map([
        ['a', 2],
        ['b', 1],
      ]),
      100,
    );
    // a runs at its reference (counts 1) for [0, 200); b at twice its reference from 100, paused until 150.
    meter.onRates(0, [{ jobId: 'a', rate: 2, pausedUntil: 0 }]);
    meter.onRates(100, [
      { jobId: 'a', rate: 2, pausedUntil: 0 },
      { jobId: 'b', rate: 2, pausedUntil: 150 },
    ]);
    const out = meter.finish([record('a', 200), record('b', 300)], { start: 0, end: 200 });
    // Work in [0, 200): a 200, b 2 × 50 = 100 → 300 / 200.
    assert.equal(out.avgThroughput, 1.5);
    // Bins of 100 s: [0,100) 100, [100,200) 100 + 100, [200,300) b alone 200 → peak 2.
    assert.equal(out.peakThroughput, 2);
  });
});
