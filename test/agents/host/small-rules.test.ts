// Small pure rules of the agent: resume step, crash back-off, progress aggregation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crashBackoffMs } from '../../../agents/host/crash-backoff.ts';
import { ProgressWindow } from '../../../agents/host/progress-window.ts';
import { resolveResumeStep } from '../../../agents/host/resume-step.ts';

test('resume from the newest complete checkpoint known', () => {
  assert.equal(resolveResumeStep(-1, null, null), -1, 'fresh start');
  assert.equal(resolveResumeStep(100, 140, null), 140, 'desired lags the confirmed checkpoint');
  assert.equal(resolveResumeStep(100, null, 120), 120, 'storage has a newer complete checkpoint');
  assert.equal(resolveResumeStep(200, 140, 120), 200, 'a newer checkpoint confirmed elsewhere is trusted');
});

test('crash back-off doubles up to the cap', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((crashes) => crashBackoffMs(crashes, 1_000, 10_000)),
    [1_000, 2_000, 4_000, 8_000, 10_000, 10_000],
  );
  assert.equal(crashBackoffMs(0, 1_000, 10_000), 0);
});

test('progress: one fresh report per running worker, then sum throughput and take the slowest step', () => {
  const window = new ProgressWindow(1_000);
  assert.equal(
    window.record(0, { step: 10, stepTime: 0.2, samplesPerSecond: 100 }, [0, 1], 0),
    null,
    'waits for rank 1',
  );
  assert.deepEqual(window.record(1, { step: 9, stepTime: 0.4, samplesPerSecond: 50 }, [0, 1], 5), {
    step: 9,
    stepTime: 0.30000000000000004,
    samplesPerSecond: 150,
  });
  // Within the interval: nothing, even with both reported again.
  window.record(0, { step: 12, stepTime: 0.2, samplesPerSecond: 100 }, [0, 1], 500);
  assert.equal(window.record(1, { step: 12, stepTime: 0.2, samplesPerSecond: 100 }, [0, 1], 600), null);
  // After the interval, the latest reports of both count.
  assert.deepEqual(window.record(0, { step: 13, stepTime: 0.1, samplesPerSecond: 200 }, [0, 1], 1_005), {
    step: 12,
    stepTime: 0.15000000000000002,
    samplesPerSecond: 300,
  });
});
