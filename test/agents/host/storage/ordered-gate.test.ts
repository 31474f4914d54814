import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OrderedGate } from '../../../../agents/host/storage/ordered-gate.ts';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('OrderedGate', () => {
  test('runs at once while nothing is held', () => {
    const seen: string[] = [];
    const gate = new OrderedGate(() => {});
    gate.run('job', () => seen.push('a'));
    assert.deepEqual(seen, ['a']);
    assert.equal(gate.holding('job'), false);
  });

  test('later events of a key wait for the held work, in order; other keys do not', async () => {
    const seen: string[] = [];
    const gate = new OrderedGate(() => {});
    const upload = deferred<boolean>();
    gate.hold('job', upload.promise, (ok) => seen.push(`checkpoint ${ok}`));
    gate.run('job', () => seen.push('exit'));
    gate.run('other', () => seen.push('other'));
    await settle();
    assert.deepEqual(seen, ['other']);
    upload.resolve(true);
    await settle();
    assert.deepEqual(seen, ['other', 'checkpoint true', 'exit']);
    assert.equal(gate.holding('job'), false);
    gate.run('job', () => seen.push('now'));
    assert.equal(seen.at(-1), 'now');
  });

  test('a failed held work still releases what waits behind it, with no result', async () => {
    const errors: unknown[] = [];
    const seen: unknown[] = [];
    const gate = new OrderedGate((error) => errors.push(error));
    const upload = deferred<boolean>();
    gate.hold('job', upload.promise, (result) => seen.push(result));
    gate.run('job', () => seen.push('exit'));
    upload.reject(new Error('S3 down'));
    await settle();
    assert.deepEqual(seen, [undefined, 'exit']);
    assert.equal(errors.length, 1);
  });
});
