import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readCsvRecords } from '../../../lib/traces/csv.ts';
import { IssueLog } from '../../../lib/traces/issues.ts';

describe('readCsvRecords', () => {
  test('gives each record its line, skipping blank lines', () => {
    const issues = new IssueLog('f.csv');
    assert.deepEqual(readCsvRecords('a,b\r\n\r\n1,"2"\r\n3,4', issues), [
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', '2'] },
      { line: 4, fields: ['3', '4'] },
    ]);
    assert.deepEqual(issues.list(), []);
  });

  test('an unclosed quote costs only its own line', () => {
    const issues = new IssueLog('f.csv');
    const records = readCsvRecords('a,b\n"1,2\n3,4\n5,6\n', issues);
    assert.deepEqual(
      records.map((r) => r.line),
      [1, 3, 4],
    );
    assert.deepEqual(
      issues.list().map((i) => [i.line, i.message.startsWith('malformed CSV (Quote Not Closed)')]),
      [[2, true]],
    );
  });
});
