import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IssueLog } from '../../../lib/traces/issues.ts';

describe('IssueLog', () => {
  test('lists issues by line and quotes the offending value', () => {
    const log = new IssueLog('f.csv');
    log.add(9, 'b', 'expected a number', 'x');
    log.add(3, undefined, 'expected 5 fields, got 4');
    assert.deepEqual(log.list(), [
      { file: 'f.csv', line: 3, message: 'expected 5 fields, got 4' },
      { file: 'f.csv', line: 9, field: 'b', message: 'expected a number, got "x"' },
    ]);
  });

  test('summarises the rows of one rule beyond the listing limit', () => {
    const log = new IssueLog('f.csv', 2);
    for (let line = 2; line <= 6; line++) log.add(line, 'gpu_num', 'CPU-only job left out', '0');
    log.add(7, 'duration', 'expected a positive number', '-1');
    const issues = log.list();
    assert.deepEqual(
      issues.map((i) => [i.line, i.field]),
      [
        [2, 'gpu_num'],
        [3, 'gpu_num'],
        [7, 'duration'],
        [4, 'gpu_num'],
      ],
    );
    assert.equal(
      issues.at(-1)?.message,
      'CPU-only job left out: 3 more rows like this (lines 4–6) not listed one by one',
    );
  });
});
