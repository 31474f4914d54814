import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linesInChunk, shouldCut } from '../../../../agents/host/logs/chunk-policy.ts';

const limits = { flushSeconds: 5, maxBytes: 100 };

test('a chunk is due after the flush interval or at the size limit, not before', () => {
  assert.equal(shouldCut({ sizes: [], oldestAt: null }, 100, limits), false);
  assert.equal(shouldCut({ sizes: [10], oldestAt: 100 }, 104.9, limits), false);
  assert.equal(shouldCut({ sizes: [10], oldestAt: 100 }, 105, limits), true);
  assert.equal(shouldCut({ sizes: [60, 40], oldestAt: 100 }, 101, limits), true);
});

test('a chunk takes lines up to the size limit, and at least one', () => {
  assert.equal(linesInChunk([40, 40, 40], limits), 2);
  assert.equal(linesInChunk([500, 10], limits), 1);
  assert.equal(linesInChunk([], limits), 0);
});
