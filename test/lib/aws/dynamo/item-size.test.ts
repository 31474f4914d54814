import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { indexEntrySize, itemSize, valueSize, writeUnits } from '../../../../lib/aws/dynamo/item-size.ts';

describe('DynamoDB item size', () => {
  test('strings, numbers, booleans, lists and maps by the documented rules', () => {
    assert.equal(valueSize('abc'), 3);
    assert.equal(valueSize('é'), 2, 'UTF-8 bytes');
    assert.equal(valueSize(7), 2);
    assert.equal(valueSize(1_700_000_000_123), 8, '13 significant digits: 7 + 1');
    assert.equal(valueSize(true), 1);
    assert.equal(valueSize([]), 3);
    assert.equal(valueSize(['a', 'bc']), 3 + 2 + 3);
    assert.equal(valueSize({ a: 'x' }), 3 + 1 + 1 + 1);
    assert.equal(itemSize({ jobId: 'job-1', rev: 12 }), 5 + 5 + 3 + 2);
  });

  test('an index entry: keys, projected attributes and 100 bytes; write units per KB', () => {
    const item = {
      jobId: 'job-1',
      status: 'queued',
      changedAt: 1,
      changeShard: 'c1',
      spec: 'x'.repeat(2000),
    };
    const keys = ['jobId', 'changeShard', 'changedAt'];
    assert.equal(indexEntrySize(item, keys, ['status']), 100 + itemSize({ ...item, spec: undefined }));
    assert.equal(indexEntrySize(item, keys, 'ALL'), 100 + itemSize(item));
    assert.deepEqual([writeUnits(1), writeUnits(1024), writeUnits(1025)], [1, 1, 2]);
  });
});
