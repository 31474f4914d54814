import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { demandOf, withMaxLevel } from '../../../../lib/core/framework/demand-of.ts';

const FIELDS = ['gpuType', 'gpus', 'cell', 'maxLevel', 'elastic'];
const cell = { gpuType: 'A100', gpus: 2, stageGpus: [2] };

describe('demandOf: every field of Demand present, in one order', () => {
  test('fields given are set, the rest undefined; JSON as without them', () => {
    assert.deepEqual(Object.keys(demandOf('A100', 2)), FIELDS);
    assert.deepEqual(Object.values(demandOf('A100', 2, cell, 'rack')), ['A100', 2, cell, 'rack', undefined]);
    assert.equal(JSON.stringify(demandOf('A100', 2)), '{"gpuType":"A100","gpus":2}');
  });

  test('withMaxLevel changes the level only', () => {
    const d = withMaxLevel(demandOf('A100', 2, cell, 'machine'), 'rack');
    assert.deepEqual(Object.keys(d), FIELDS);
    assert.deepEqual(Object.values(d), ['A100', 2, cell, 'rack', undefined]);
  });
});
