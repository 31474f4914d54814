import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePhilly } from '../../../lib/traces/philly.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

describe('parsePhilly', () => {
  const trace = parsePhilly(readFixture('philly-jobs.csv'), 'philly-jobs.csv');

  test('reads every real row, sorted by submit time and re-based to the first arrival', () => {
    assert.equal(trace.format, 'philly');
    assert.equal(trace.name, 'philly-jobs');
    assert.equal(trace.jobs.length, 17);
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(trace.jobs[0], {
      id: 'philly-4',
      submitTime: 0,
      gpus: 1,
      duration: 860662,
      tenant: '6c71a0',
      labels: { timestamp: '2017-09-29 07:58:32' },
    });
    for (let i = 1; i < trace.jobs.length; i++) {
      assert.ok(trace.jobs[i - 1]!.submitTime <= trace.jobs[i]!.submitTime);
    }
  });

  test('reads timestamps as UTC seconds', () => {
    // 2017-10-09 04:44:14 is 10 days minus 3:14:18 after 2017-09-29 07:58:32.
    assert.equal(trace.jobs.find((j) => j.id === 'philly-13')?.submitTime, 864_000 - 11_658);
    assert.equal(trace.jobs.at(-1)?.id, 'philly-18');
    assert.equal(trace.jobs.find((j) => j.id === 'philly-16')?.gpus, 8);
  });

  test('breaks submit-time ties by line number', () => {
    const order = trace.jobs.map((j) => j.id);
    assert.ok(order.indexOf('philly-15') + 1 === order.indexOf('philly-16'));
    assert.ok(order.indexOf('philly-14') + 1 === order.indexOf('philly-17'));
  });

  test('leaves out each malformed row with an issue naming file, line, field and rule', () => {
    const bad = parsePhilly(readFixture('philly-malformed.csv'), 'philly-malformed.csv');
    assert.deepEqual(bad.jobs.map((j) => j.id).sort(), [
      'philly-14',
      'philly-15',
      'philly-2',
      'philly-3',
      'philly-4',
      'philly-5',
      'philly-7',
      'philly-8',
    ]);
    assert.deepEqual(bad.issues.map(formatIssue), [
      'philly-malformed.csv:6: num_gpus: expected a positive integer, got "-2"',
      'philly-malformed.csv:9: timestamp: expected a date-time YYYY-MM-DD HH:MM:SS, got "2017-02-30 07:00:41"',
      'philly-malformed.csv:10: duration: expected a positive number, got ""',
      'philly-malformed.csv:11: expected 5 fields as in the header, got "2017-10-09 06:11:13,2987.0,1,2987.0"',
      'philly-malformed.csv:12: duration: expected a positive number, got "abc"',
      'philly-malformed.csv:12: num_gpus: expected a positive integer, got "0.5"',
      'philly-malformed.csv:13: malformed CSV (Quote Not Closed), got "\\"2017-10-09 04:44:14,7944.0,1,7944.0,6214e9"',
    ]);
  });

  test('rejects files that are not a Philly list', () => {
    assert.throws(() => parsePhilly('', 'empty.csv'), TraceFormatError);
    assert.throws(
      () => parsePhilly('job_id,num_gpu,submit_time\n1,2,3\n', 'other.csv'),
      (e: Error) =>
        e instanceof TraceFormatError &&
        e.message.includes('other.csv:1') &&
        e.message.includes('timestamp, duration, num_gpus'),
    );
    assert.throws(() => parsePhilly('\u0000\u0001\u0002binary', 'x.gz'), /binary/);
  });

  test('a header without rows is an empty trace', () => {
    const empty = parsePhilly('timestamp,duration,num_gpus,gpu_time,cluster\n', 'h.csv');
    assert.deepEqual(empty.jobs, []);
    assert.deepEqual(empty.issues, []);
  });
});
