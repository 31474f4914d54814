import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allocationOf, pairedWith, unpaired, withSlices } from '../../../../lib/core/model/allocation-of.ts';

const cell = { gpuType: 'A100', gpus: 2, stageGpus: [2] };
const slices = [{ hostId: 'h1', gpus: [0, 1] }];
const moved = [{ hostId: 'h2', gpus: [2, 3] }];
const FIELDS = ['gpuType', 'slices', 'cell', 'packedWith', 'packingStrategy', 'ests'];
/** The defined fields and their values: what a reader (and JSON) sees. */
const defined = (a: object) => Object.entries(a).filter(([, v]) => v !== undefined);

describe('allocationOf and its copies: every field present in one order, the values a spread would give', () => {
  test('every field of Allocation, in declaration order, the ones not given undefined', () => {
    assert.deepEqual(Object.keys(allocationOf('A100', slices)), FIELDS);
    const full = allocationOf('A100', slices, cell, 'g', 'pp', [[0], [1]]);
    assert.deepEqual(Object.keys(full), FIELDS);
    assert.deepEqual(Object.values(full), ['A100', slices, cell, 'g', 'pp', [[0], [1]]]);
    assert.equal(JSON.stringify(allocationOf('A100', slices)), JSON.stringify({ gpuType: 'A100', slices }));
  });

  test('withSlices, pairedWith and unpaired keep every field a spread keeps and change the one it changes', () => {
    for (const base of [allocationOf('A100', slices), allocationOf('A100', slices, cell)]) {
      assert.deepEqual(defined(withSlices(base, moved)), defined({ ...base, slices: moved }));
      assert.deepEqual(defined(pairedWith(base, 'g')), defined({ ...base, packedWith: 'g' }));
      assert.deepEqual(
        defined(pairedWith(base, 'g', 'pp')),
        defined({ ...base, packedWith: 'g', packingStrategy: 'pp' }),
      );
      const paired = pairedWith(base, 'g', 'pp');
      // A strategy of undefined keeps the one the allocation had, as `{ ...a, packedWith, ...{} }` does.
      assert.equal(pairedWith(paired, 'h').packingStrategy, 'pp');
      const { packedWith: _p, packingStrategy: _s, ...alone } = paired;
      assert.deepEqual(defined(unpaired(paired)), defined(alone));
      assert.deepEqual(defined(withSlices(paired, moved)), defined({ ...paired, slices: moved }));
      for (const copy of [withSlices(base, moved), pairedWith(base, 'g'), unpaired(paired)])
        assert.deepEqual(Object.keys(copy), FIELDS);
    }
  });
});
