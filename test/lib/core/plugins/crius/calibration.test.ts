import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CELL_ALPHA,
  calibratedRate,
  EFFICIENCY_ALPHA,
  observe,
} from '../../../../../lib/core/plugins/crius/calibration.ts';

const obs = (
  jobId: string,
  cell: string,
  measured: number,
  estimated = 1,
  model = 'bert-1.3b',
  gpuType = 'A40',
) => ({
  jobId,
  model,
  gpuType,
  cell,
  measured,
  estimated,
});

describe('calibration from observed throughput', () => {
  test('a job observed on a Cell: the EWMA of measured ÷ estimated replaces its estimate there', () => {
    let state = observe(undefined, [obs('a', 'A40|4|2', 0.8)], new Set(['a']));
    assert.equal(calibratedRate(state, 'a', 'bert-1.3b', 'A40', 'A40|4|2', 10), 8);
    state = observe(state, [obs('a', 'A40|4|2', 0.6)], new Set(['a']));
    const ratio = CELL_ALPHA * 0.6 + (1 - CELL_ALPHA) * 0.8;
    assert.ok(Math.abs(calibratedRate(state, 'a', 'bert-1.3b', 'A40', 'A40|4|2', 10) - 10 * ratio) < 1e-12);
  });

  test('other Cells and other jobs of the model on that type get the learned efficiency', () => {
    let state = observe(undefined, [obs('a', 'A40|4|2', 0.8)], new Set(['a', 'b']));
    state = observe(state, [obs('a', 'A40|4|2', 0.6)], new Set(['a', 'b']));
    const efficiency = EFFICIENCY_ALPHA * 0.6 + (1 - EFFICIENCY_ALPHA) * 0.8;
    assert.ok(
      Math.abs(calibratedRate(state, 'a', 'bert-1.3b', 'A40', 'A40|8|4', 10) - 10 * efficiency) < 1e-12,
    );
    assert.ok(
      Math.abs(calibratedRate(state, 'b', 'bert-1.3b', 'A40', 'A40|4|2', 10) - 10 * efficiency) < 1e-12,
    );
    // Another type or model: nothing learned.
    assert.equal(calibratedRate(state, 'b', 'bert-1.3b', 'A10', 'A10|4|2', 10), 10);
    assert.equal(calibratedRate(state, 'b', 'moe-1.3b', 'A40', 'A40|4|2', 10), 10);
  });

  test('a new Cell restarts the job’s EWMA; finished jobs are forgotten; glitches are ignored', () => {
    let state = observe(undefined, [obs('a', 'A40|4|2', 0.8)], new Set(['a']));
    state = observe(state, [obs('a', 'A40|8|2', 1.2)], new Set(['a']));
    assert.equal(state.cells.a?.ratio, 1.2);
    state = observe(state, [], new Set());
    assert.equal(state.cells.a, undefined);
    assert.ok(state.efficiency['bert-1.3b|A40'] !== undefined);
    const before = state.efficiency['bert-1.3b|A40'];
    state = observe(state, [obs('c', 'A40|4|2', 100), obs('d', 'A40|4|2', 0)], new Set(['c', 'd']));
    assert.equal(state.efficiency['bert-1.3b|A40'], before);
    assert.equal(state.cells.c, undefined);
  });
});
