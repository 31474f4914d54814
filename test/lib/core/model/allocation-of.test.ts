import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allocationOf, pairedWith, unpaired, withSlices } from '../../../../lib/core/model/allocation-of.ts';
import type { Allocation } from '../../../../lib/core/model/plan.ts';

const cell = { gpuType: 'A100', gpus: 2, stageGpus: [2] };
const slices = [{ hostId: 'h1', gpus: [0, 1] }];
const moved = [{ hostId: 'h2', gpus: [2, 3] }];
const keysAndValues = (a: Allocation) => Object.entries(a);

describe('allocationOf and its copies: the fields an object spread would give, in declaration order', () => {
  test('leaves out undefined fields and orders the rest as Allocation declares them', () => {
    assert.deepEqual(Object.keys(allocationOf('A100', slices)), ['gpuType', 'slices']);
    const full = allocationOf('A100', slices, cell, 'g', 'pp', [[0], [1]]);
    assert.deepEqual(Object.keys(full), [
      'gpuType',
      'slices',
      'cell',
      'packedWith',
      'packingStrategy',
      'ests',
    ]);
  });

  test('withSlices, pairedWith and unpaired equal the spreads they replace', () => {
    for (const base of [allocationOf('A100', slices), allocationOf('A100', slices, cell)]) {
      assert.deepEqual(keysAndValues(withSlices(base, moved)), keysAndValues({ ...base, slices: moved }));
      assert.deepEqual(keysAndValues(pairedWith(base, 'g')), keysAndValues({ ...base, packedWith: 'g' }));
      assert.deepEqual(
        keysAndValues(pairedWith(base, 'g', 'pp')),
        keysAndValues({ ...base, packedWith: 'g', packingStrategy: 'pp' }),
      );
      const paired = pairedWith(base, 'g', 'pp');
      // A strategy of undefined keeps the one the allocation had, as `{ ...a, packedWith, ...{} }` does.
      assert.equal(pairedWith(paired, 'h').packingStrategy, 'pp');
      const { packedWith: _p, packingStrategy: _s, ...alone } = paired;
      assert.deepEqual(keysAndValues(unpaired(paired)), keysAndValues(alone));
      assert.deepEqual(keysAndValues(withSlices(paired, moved)), keysAndValues({ ...paired, slices: moved }));
    }
  });
});
