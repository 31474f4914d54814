import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyChanges } from '../../../../lib/aws/dynamo/apply-changes.ts';
import { Expressions } from '../../../../lib/aws/dynamo/expressions.ts';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../../../lib/aws/dynamo/pagination.ts';

describe('Expressions', () => {
  test('placeholders for every name and value, one per distinct name', () => {
    const x = new Expressions();
    const update = x.update({
      set: { status: 'running', size: 3, gone: undefined },
      add: { count: 2 },
      remove: ['allocation'],
    });
    const condition = x.eq('status', 'queued');
    assert.equal(update, 'SET #n0 = :v0, #n1 = :v1 ADD #n2 :v2 REMOVE #n3');
    assert.equal(condition, '#n0 = :v3');
    assert.deepEqual(x.attributes(), {
      ExpressionAttributeNames: { '#n0': 'status', '#n1': 'size', '#n2': 'count', '#n3': 'allocation' },
      ExpressionAttributeValues: { ':v0': 'running', ':v1': 3, ':v2': 2, ':v3': 'queued' },
    });
    assert.equal(x.eqOrAbsent('masterPort', undefined), 'attribute_not_exists(#n4)');
  });

  test('an update must change something; empty maps are left out', () => {
    assert.throws(() => new Expressions().update({}), /at least one attribute/);
    assert.deepEqual(new Expressions().attributes(), {});
  });

  test('applyChanges mirrors SET, ADD and REMOVE', () => {
    assert.deepEqual(
      applyChanges({ a: 1, b: 2, n: 5 }, { set: { a: 9, c: 'x' }, add: { n: 2, m: 1 }, remove: ['b'] }),
      {
        a: 9,
        c: 'x',
        n: 7,
        m: 1,
      },
    );
  });
});

describe('page cursors', () => {
  test('round-trip a key', () => {
    const key = { jobId: 'job-1', tenant: 'alice', submittedAt: 17 };
    assert.deepEqual(decodeCursor(encodeCursor(key)!), key);
    assert.equal(encodeCursor(undefined), undefined);
  });

  test('reject anything that is not a key, naming the parameter', () => {
    for (const bad of [
      '%%%',
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('{"a":{"b":1}}').toString('base64url'),
    ]) {
      assert.throws(
        () => decodeCursor(bad),
        (error: Error) => error instanceof InvalidCursorError && /^nextToken:/.test(error.message),
      );
    }
  });
});
