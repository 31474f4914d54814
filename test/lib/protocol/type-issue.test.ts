import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateJobSpec } from '../../../lib/protocol/job-spec.ts';
import { describeValue, typeIssueRule, unknownFieldRule, valueAt } from '../../../lib/protocol/type-issue.ts';

const valid = {
  model: 'resnet50',
  batchSize: 64,
  gpus: 2,
  iterations: 100,
  command: ['python3', 'train.py'],
};

/** Every issue of a document as `field: rule`, through the real schema. */
const problems = (document: unknown): string[] => {
  const result = validateJobSpec(document);
  assert.equal(result.ok, false);
  return result.ok ? [] : result.issues.map((i) => `${i.field}: ${i.rule}`);
};

describe('job spec type errors in a YAML user’s words', () => {
  test('a missing required field is "is required", not the rule for a wrong value', () => {
    const { gpus: _, iterations: __, ...rest } = valid;
    assert.deepEqual(problems(rest), ['gpus: is required', 'iterations: is required']);
    assert.deepEqual(problems({ ...valid, elastic: {} }), ['elastic.maxP: is required']);
  });

  test('a value of the wrong shape names the shape expected and the value given', () => {
    assert.deepEqual(problems({ ...valid, command: 'python3 train.py' }), [
      'command: must be a list, e.g. [a, b]; got a string ("python3 train.py")',
    ]);
    assert.deepEqual(problems({ ...valid, env: { LR: 0.1 } }), [
      'env.LR: must be a string; got a number (0.1)',
    ]);
    assert.deepEqual(problems({ ...valid, labels: ['nlp'] }), [
      'labels: must be a mapping of names to values, e.g. { key: value }; got a list',
    ]);
    assert.deepEqual(problems({ ...valid, packable: null }), ['packable: must be true or false; got null']);
  });

  test('the schema’s own rule stays for a present value (gpus: 1.5 is "must be an integer")', () => {
    assert.deepEqual(problems({ ...valid, gpus: 1.5 }), ['gpus: must be an integer']);
    assert.deepEqual(problems({ ...valid, gpus: '2' }), ['gpus: must be an integer']);
  });

  test('each unknown field is its own problem, with the field a typo most likely meant', () => {
    assert.deepEqual(problems({ ...valid, gpu: 2, comand: ['x'], colour: 'red' }), [
      'gpu: unknown field (did you mean gpus?)',
      'comand: unknown field (did you mean command?)',
      'colour: unknown field',
    ]);
  });
});

describe('type-issue helpers', () => {
  test('describeValue', () => {
    assert.equal(describeValue('x'.repeat(50)), `a string ("${'x'.repeat(40)}…")`);
    assert.equal(describeValue({}), 'a mapping');
    assert.equal(describeValue(true), 'a boolean (true)');
  });

  test('valueAt follows a path and stops at non-objects', () => {
    assert.equal(valueAt({ a: { b: [1, 2] } }, ['a', 'b', 1]), 2);
    assert.equal(valueAt({ a: 3 }, ['a', 'b']), undefined);
  });

  test('typeIssueRule keeps messages it does not know how to improve', () => {
    assert.equal(typeIssueRule({ message: 'Invalid input', expected: 'bigint' }, 1n, true), 'Invalid input');
    assert.equal(
      typeIssueRule({ message: 'must be an integer', expected: 'number' }, undefined, false),
      'is required',
    );
  });

  test('unknownFieldRule suggests only close names', () => {
    assert.equal(unknownFieldRule('GPUS', ['gpus']), 'unknown field (did you mean gpus?)');
    assert.equal(unknownFieldRule('env', ['name', 'gpus']), 'unknown field');
    assert.equal(unknownFieldRule('x', []), 'unknown field');
  });
});
