import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AutoTunerOptions,
  DEFAULT_AUTO_TUNER,
  pruneTuner,
  recordWait,
  tunedTimers,
  validateAutoTuner,
  waitBound,
} from '../../../../../lib/core/plugins/dally/auto-tuner.ts';
import type { DelayTunerState } from '../../../../../lib/core/plugins/dally/state.ts';

const HOUR = 3600;
const OPTIONS: AutoTunerOptions = {
  historySeconds: 10 * HOUR,
  maxSamples: 4,
  fallback: { machine: 1800, rack: 900 },
  sigmas: 2,
};

describe('waitBound (mean + 2 sample standard deviations)', () => {
  test('on a known list', () => {
    // mean 200, sample variance ((−100)² + 0 + 100²) / 2 = 10,000 → s = 100 → 200 + 2·100.
    assert.equal(waitBound([100, 200, 300], 2), 400);
  });
  test('fewer than two samples: σ = 0', () => {
    assert.equal(waitBound([750], 2), 750);
  });
  test('empty: no bound', () => {
    assert.equal(waitBound([], 2), undefined);
  });
});

describe('tunedTimers', () => {
  const history: DelayTunerState = {
    lists: {
      'machine:8': [
        { at: 1 * HOUR, waited: 100 },
        { at: 5 * HOUR, waited: 200 },
        { at: 9 * HOUR, waited: 300 },
      ],
      'rack:8': [{ at: 9 * HOUR, waited: 5000 }],
      'machine:4': [{ at: 0, waited: 9999 }],
    },
  };

  test('per (level, demand) list, recomputed at the offer time', () => {
    assert.deepEqual(tunedTimers(history, 8, 10 * HOUR - 1, OPTIONS), { machine: 400, rack: 5000 });
  });

  test('samples older than the history window expire', () => {
    // At 11 h the 1 h sample is out (window 10 h): [200, 300] → mean 250, s = 70.71 → 391.4.
    const t = tunedTimers(history, 8, 11 * HOUR, OPTIONS);
    assert.ok(Math.abs(t.machine - (250 + 2 * Math.SQRT1_2 * 100)) < 1e-9, String(t.machine));
    // At 19 h only the 9 h sample is left: one sample, σ = 0.
    assert.equal(tunedTimers(history, 8, 19 * HOUR - 1, OPTIONS).machine, 300);
    // At 19 h it is exactly 10 h old and gone too: the fallback.
    assert.deepEqual(tunedTimers(history, 8, 19 * HOUR, OPTIONS), { machine: 1800, rack: 900 });
  });

  test('an empty list or another demand falls back', () => {
    assert.deepEqual(tunedTimers(history, 2, 10 * HOUR, OPTIONS), { machine: 1800, rack: 900 });
    assert.deepEqual(tunedTimers(undefined, 8, 0, OPTIONS), { machine: 1800, rack: 900 });
    // machine:4 has one sample, but it expired at 10 h.
    assert.equal(tunedTimers(history, 4, 10 * HOUR, OPTIONS).machine, 1800);
  });
});

describe('recordWait and pruneTuner', () => {
  test('appends to its own list, dropping expired samples and keeping the most recent maxSamples', () => {
    let state: DelayTunerState | undefined;
    for (let i = 0; i < 6; i++) state = recordWait(state, 'machine', 8, i * 10, i * HOUR, OPTIONS);
    assert.deepEqual(
      state!.lists['machine:8']!.map((s) => s.waited),
      [20, 30, 40, 50],
    );
    state = recordWait(state, 'rack', 16, 77, 6 * HOUR, OPTIONS);
    assert.deepEqual(state.lists['rack:16'], [{ at: 6 * HOUR, waited: 77 }]);
    assert.equal(state.lists['machine:8']!.length, 4);
    // At 15 h every machine sample (the newest from 5 h) is at least 10 h old: only the new one is left.
    state = recordWait(state, 'machine', 8, 1, 15 * HOUR, OPTIONS);
    assert.deepEqual(
      state.lists['machine:8']!.map((s) => s.waited),
      [1],
    );
  });

  test('a negative wait (clock skew) is recorded as 0', () => {
    const state = recordWait(undefined, 'rack', 2, -5, 100, OPTIONS);
    assert.equal(state.lists['rack:2']![0]!.waited, 0);
  });

  test('pruning drops expired samples and empty lists', () => {
    const state: DelayTunerState = {
      lists: {
        'machine:2': [{ at: 0, waited: 1 }],
        'rack:2': [
          { at: 0, waited: 1 },
          { at: 5 * HOUR, waited: 2 },
        ],
      },
    };
    assert.deepEqual(pruneTuner(state, 10 * HOUR, OPTIONS), {
      lists: { 'rack:2': [{ at: 5 * HOUR, waited: 2 }] },
    });
    assert.deepEqual(pruneTuner(undefined, 0, OPTIONS), { lists: {} });
  });

  test('returns a state with nothing to drop as it is (asked every round), and copies one with something to drop', () => {
    const live: DelayTunerState = {
      lists: {
        'machine:2': [{ at: 5 * HOUR, waited: 1 }],
        'rack:2': [
          { at: 6 * HOUR, waited: 1 },
          { at: 7 * HOUR, waited: 2 },
        ],
      },
    };
    assert.equal(pruneTuner(live, 10 * HOUR, OPTIONS), live);
    // One sample expired (at 0 h, 10 h old at 10 h), one list empty, one list over maxSamples, a sample from the future.
    const expired = { lists: { ...live.lists, 'rack:4': [{ at: 0, waited: 3 }] } };
    assert.deepEqual(pruneTuner(expired, 10 * HOUR, OPTIONS), live);
    assert.deepEqual(pruneTuner({ lists: { ...live.lists, 'rack:8': [] } }, 10 * HOUR, OPTIONS), live);
    const five = [1, 2, 3, 4, 5].map((i) => ({ at: 5 * HOUR + i, waited: i }));
    assert.deepEqual(pruneTuner({ lists: { 'machine:8': five } }, 10 * HOUR, OPTIONS), {
      lists: { 'machine:8': five.slice(1) },
    });
    assert.deepEqual(
      pruneTuner({ lists: { 'machine:8': [{ at: 11 * HOUR, waited: 1 }] } }, 10 * HOUR, OPTIONS),
      {
        lists: {},
      },
    );
  });
});

describe('validateAutoTuner', () => {
  test('accepts the defaults and infinite fallbacks', () => {
    assert.equal(validateAutoTuner(DEFAULT_AUTO_TUNER), DEFAULT_AUTO_TUNER);
    validateAutoTuner({ ...OPTIONS, fallback: { machine: Infinity, rack: Infinity } });
  });
  test('names the bad field', () => {
    assert.throws(
      () => validateAutoTuner({ ...OPTIONS, historySeconds: 0 }),
      /historySeconds must be a number > 0/,
    );
    assert.throws(
      () => validateAutoTuner({ ...OPTIONS, maxSamples: 1.5 }),
      /maxSamples must be an integer ≥ 1/,
    );
    assert.throws(
      () => validateAutoTuner({ ...OPTIONS, fallback: { machine: -1, rack: 0 } }),
      /fallback.machine must be a number ≥ 0/,
    );
    assert.throws(() => validateAutoTuner({ ...OPTIONS, sigmas: Number.NaN }), /sigmas/);
  });
});
