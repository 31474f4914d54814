import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTiresias } from '../../../lib/traces/tiresias.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

describe('parseTiresias', () => {
  test('reads the 60_job layout: GPUs, iterations, model, duration, other columns as labels', () => {
    const trace = parseTiresias(readFixture('tiresias-60_job.csv'), 'tiresias-60_job.csv');
    assert.equal(trace.jobs.length, 10);
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(trace.jobs[1], {
      id: '1',
      submitTime: 30,
      gpus: 8,
      duration: 147,
      iterations: 133,
      model: 'vgg11',
      labels: { submit_time: '30', interval: '23' },
    });
    assert.deepEqual(
      trace.jobs.map((j) => j.model),
      [
        'vgg19',
        'vgg11',
        'inception4',
        'vgg16',
        'vgg16',
        'inception3',
        'resnet152',
        'resnet152',
        'vgg16',
        'resnet50',
      ],
    );
  });

  test('reads the tf_job layout by column name and reports its repeated job id', () => {
    const trace = parseTiresias(readFixture('tiresias-tf_job.csv'), 'tf_job.csv');
    assert.equal(trace.jobs.length, 1);
    assert.equal(trace.jobs[0]?.gpus, 12);
    assert.equal(trace.jobs[0]?.iterations, undefined);
    assert.equal(trace.jobs[0]?.labels?.model_size, '400');
    assert.deepEqual(trace.issues.map(formatIssue), [
      'tf_job.csv:3: job_id: duplicate job id (first used at line 2), got "10"',
    ]);
  });

  test('malformed rows become issues; submit times are re-based', () => {
    const text = [
      'job_id,num_gpu,submit_time,iterations,model_name,duration,interval',
      '0,1,100,606,vgg19,164,30',
      '1,0,130,133,vgg11,147,23',
      '2,2,-5,157,inception4,127,26',
      '3,1,179,5.5,vgg16,121,20',
      '4,4,199,138,,121,33',
    ].join('\n');
    const trace = parseTiresias(text, 't.csv');
    assert.deepEqual(
      trace.jobs.map((j) => [j.id, j.submitTime, j.model]),
      [
        ['0', 0, 'vgg19'],
        ['4', 99, undefined],
      ],
    );
    assert.deepEqual(trace.issues.map(formatIssue), [
      't.csv:3: num_gpu: expected a positive integer, got "0"',
      't.csv:4: submit_time: expected a number ≥ 0, got "-5"',
      't.csv:5: iterations: expected a positive integer, got "5.5"',
    ]);
  });

  test('a header without the required columns is not a Tiresias trace', () => {
    assert.throws(() => parseTiresias('job_id,num_gpu\n1,2\n', 't.csv'), TraceFormatError);
  });
});
