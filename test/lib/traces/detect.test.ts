import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectFormat } from '../../../lib/traces/detect.ts';
import { TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

describe('detectFormat', () => {
  test('recognises each fixture by its first line or name', () => {
    const cases: [string, string][] = [
      ['philly-jobs.csv', 'philly'],
      ['tiresias-60_job.csv', 'tiresias'],
      ['tiresias-tf_job.csv', 'tiresias'],
      ['pollux-workload-1.csv', 'pollux'],
      ['gavel-artifact_evaluation.trace', 'gavel'],
      ['shockwave-120jobs.trace', 'shockwave'],
      ['helios/cluster_log.csv', 'helios'],
      ['pai/pai_job_table.csv', 'alibaba-pai'],
      ['pai/pai_task_table.csv', 'alibaba-pai'],
    ];
    for (const [file, format] of cases) assert.equal(detectFormat(readFixture(file), file), format, file);
  });

  test('recognises a headerless PAI job table by its shape', () => {
    assert.equal(detectFormat(readFixture('pai/pai_job_table.csv'), 'jobs.csv'), 'alibaba-pai');
  });

  test('names the known formats when nothing matches', () => {
    assert.throws(
      () => detectFormat('a,b,c\n1,2,3\n', 'mystery.csv'),
      (e: Error) =>
        e instanceof TraceFormatError &&
        e.message.includes('mystery.csv') &&
        e.message.includes('"a,b,c"') &&
        e.message.includes('philly, tiresias, pollux, gavel, shockwave, helios, alibaba-pai'),
    );
    assert.throws(() => detectFormat('x\ty\tz\n', 'three.trace'), TraceFormatError);
    assert.throws(() => detectFormat('   \n', 'blank.csv'), /empty/);
  });
});
