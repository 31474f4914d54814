import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTrace, TRACE_FORMATS, TraceFormatError } from '../../../lib/traces/index.ts';
import { readFixture } from './fixtures.ts';

describe('parseTrace', () => {
  test('detects the format, or takes the forced one', () => {
    const text = readFixture('tiresias-60_job.csv');
    assert.equal(parseTrace(text, '60_job.csv').format, 'tiresias');
    assert.equal(parseTrace(text, '60_job.csv', { format: 'tiresias' }).jobs.length, 10);
  });

  test('a forced format that does not fit the file is a format error', () => {
    assert.throws(
      () => parseTrace(readFixture('philly-jobs.csv'), 'p.csv', { format: 'pollux' }),
      TraceFormatError,
    );
  });

  test('an unknown format lists the known ones', () => {
    assert.throws(
      () => parseTrace('x', 'x.csv', { format: 'slurm' }),
      (e: Error) =>
        e instanceof TraceFormatError &&
        e.message === `unknown trace format "slurm"; known formats: ${TRACE_FORMATS.join(', ')}`,
    );
  });

  test('a PAI job table needs its task table', () => {
    const text = readFixture('pai/pai_job_table.csv');
    assert.throws(() => parseTrace(text, 'pai_job_table.csv'), /pai_task_table\.csv/);
    const taskTable = { text: readFixture('pai/pai_task_table.csv'), fileName: 'pai_task_table.csv' };
    assert.equal(parseTrace(text, 'pai_job_table.csv', { taskTable }).jobs.length, 3);
  });
});
