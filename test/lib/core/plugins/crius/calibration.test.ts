import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  CELL_ALPHA,
  calibratedRate,
  EFFICIENCY_ALPHA,
  type Observation,
  observe,
  observeKeyed,
} from '../../../../../lib/core/plugins/crius/calibration.ts';
import type { CellCalibrationState } from '../../../../../lib/core/plugins/crius/state.ts';

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

/** `observe` as the EWMA rule states it: a fresh record of every active job's entry, then each observation folded in. */
const referenceObserve = (
  state: CellCalibrationState | undefined,
  observations: readonly Observation[],
  activeJobs: ReadonlySet<string>,
): CellCalibrationState => {
  const previous = state ?? { cells: {}, efficiency: {} };
  const cells: Record<string, { cell: string; ratio: number }> = {};
  for (const [jobId, entry] of Object.entries(previous.cells))
    if (activeJobs.has(jobId)) cells[jobId] = entry;
  const efficiency: Record<string, number> = { ...previous.efficiency };
  for (const o of observations) {
    if (!(o.measured > 0 && o.estimated > 0)) continue;
    const ratio = o.measured / o.estimated;
    if (ratio > 4 || ratio < 1 / 4) continue;
    const own = cells[o.jobId];
    cells[o.jobId] = {
      cell: o.cell,
      ratio: own && own.cell === o.cell ? CELL_ALPHA * ratio + (1 - CELL_ALPHA) * own.ratio : ratio,
    };
    const key = `${o.model}|${o.gpuType}`;
    const learned = efficiency[key];
    efficiency[key] =
      learned === undefined ? ratio : EFFICIENCY_ALPHA * ratio + (1 - EFFICIENCY_ALPHA) * learned;
  }
  return { cells, efficiency };
};

describe('calibration, copy on write', () => {
  // Rounds of observations over a few jobs, models, types and Cells; measured rates repeat (as a job that keeps its
  // Cell reports the same throughput), so many rounds change nothing.
  const observation = fc.record({
    jobId: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    model: fc.constantFrom('bert', 'gpt'),
    gpuType: fc.constantFrom('A40', 'V100'),
    cell: fc.constantFrom('A40|4|1', 'A40|8|2', 'V100|4|1'),
    measured: fc.constantFrom(0, 0.5, 0.9, 1, 1.2, 30),
    estimated: fc.constantFrom(1, 1.1),
  });
  const round = fc.record({
    observations: fc.array(observation, { maxLength: 6 }),
    active: fc.subarray(['a', 'b', 'c', 'd', 'e'], { minLength: 3 }),
    keys: fc.boolean(),
  });

  test('property: every round folds in as the EWMA rule states, and a round that changes nothing keeps the state', () => {
    let kept = 0;
    fc.assert(
      fc.property(fc.array(round, { minLength: 1, maxLength: 30 }), (rounds) => {
        let state: CellCalibrationState | undefined;
        let reference: CellCalibrationState | undefined;
        for (const r of rounds) {
          const active = new Set(r.active);
          const previous = state;
          // The caller may pass the previous record's keys (`Object.keys(state.cells)`), or not.
          const keys = r.keys && state ? Object.keys(state.cells) : undefined;
          state = observe(state, r.observations, active, keys);
          reference = referenceObserve(reference, r.observations, active);
          assert.deepEqual(state, reference);
          assert.deepEqual(Object.keys(state.cells), Object.keys(reference.cells), 'same key order');
          if (previous && isDeepStrictEqual(previous, state)) {
            assert.equal(state, previous, 'nothing changed: the same state object');
            kept++;
          }
        }
      }),
      { numRuns: 300, seed: 5 },
    );
    assert.ok(kept > 50, `${kept} rounds kept the state`);
  });

  test('a record nothing changes is shared with the previous state', () => {
    const first = observe(
      undefined,
      [obs('a', 'A40|4|2', 0.8), obs('b', 'A40|4|2', 0.5, 1, 'gpt')],
      new Set(['a', 'b']),
    );
    // b observed again at its ratio, a not at all: b's EWMA stays, gpt|A40 stays (0.2 × 0.5 + 0.8 × 0.5 is 0.5 exactly),
    // bert|A40 too.
    const second = observe(first, [obs('b', 'A40|4|2', 0.5, 1, 'gpt')], new Set(['a', 'b']));
    assert.equal(second, first);
    // a leaves: the cells record changes, the efficiency record is the previous one.
    const third = observe(second, [], new Set(['b']));
    assert.notEqual(third.cells, second.cells);
    assert.equal(third.efficiency, second.efficiency);
    assert.deepEqual(Object.keys(third.cells), ['b']);
  });

  test("property: the keys observeKeyed lists are the new record's Object.keys, in order (array-index ids too)", () => {
    const ids = ['a', 'b', '7', '12', '007', 'constructor', 'z'];
    const keyedRound = fc.record({
      observations: fc.array(
        fc.record({
          jobId: fc.constantFrom(...ids),
          model: fc.constantFrom('bert', 'gpt'),
          gpuType: fc.constantFrom('A40', 'V100'),
          cell: fc.constantFrom('A40|4|1', 'V100|4|1'),
          measured: fc.constantFrom(0, 0.9, 1, 1.2),
          estimated: fc.constantFrom(1, 1.1),
        }),
        { maxLength: 6 },
      ),
      active: fc.subarray(ids, { minLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(keyedRound, { minLength: 1, maxLength: 20 }), (rounds) => {
        let state: CellCalibrationState | undefined;
        let keys: readonly string[] | undefined;
        for (const r of rounds) {
          const next = observeKeyed(state, r.observations, new Set(r.active), keys);
          assert.deepEqual(next.keys, Object.keys(next.state.cells));
          assert.deepEqual(next.state, observe(state, r.observations, new Set(r.active)));
          state = next.state;
          keys = next.keys;
        }
      }),
      { numRuns: 300, seed: 9 },
    );
  });
});
