import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseHelios } from '../../../lib/traces/helios.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

const HEADER =
  'job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue';

describe('parseHelios', () => {
  const trace = parseHelios(readFixture('helios/cluster_log.csv'), 'cluster_log.csv');

  test('reads GPU jobs with vc as tenant and the rest as labels, sorted by submit time', () => {
    assert.equal(trace.format, 'helios');
    assert.deepEqual(
      trace.jobs.map((j) => [j.id, j.submitTime, j.gpus, j.duration, j.tenant]),
      [
        ['1425514', 0, 16, 8815, 'vc6YE'],
        ['1425511', 6, 1, 36848, 'vcJkd'],
        ['1425512', 32, 4, 249, 'vchbv'],
        ['1425513', 33, 1, 675233, 'vcpDC'],
      ],
    );
    assert.deepEqual(trace.jobs[0]?.labels, {
      user: 'u5pTz',
      jobname: 'jobLrg',
      cpu_num: '64',
      node_num: '2',
      state: 'COMPLETED',
      submit_time: '2020-06-09 18:40:55',
      start_time: '2020-06-09 18:43:10',
      end_time: '2020-06-09 21:10:05',
      queue: '135',
    });
  });

  test('leaves out CPU-only jobs with an issue', () => {
    assert.deepEqual(trace.issues.map(formatIssue), [
      'cluster_log.csv:2: gpu_num: CPU-only job left out (GPU jobs need gpu_num ≥ 1), got "0"',
    ]);
  });

  test('takes end − start when the duration is blank, and reports rows that never ran', () => {
    const text = [
      HEADER,
      '1,u1,vc1,j,2,4,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:30,2020-06-09 19:00:30,,30',
      '2,u1,vc1,j,2,4,1,CANCELLED,2020-06-09 18:01:00,2020-06-09 18:01:00,2020-06-09 18:01:00,,0',
      '3,u1,vc1,j,2,4,1,COMPLETED,2020-13-09 18:02:00,2020-06-09 18:02:00,2020-06-09 18:03:00,60,0',
      '3,u1,vc1,j,1,4,1,COMPLETED,2020-06-09 18:02:00,2020-06-09 18:02:00,2020-06-09 18:03:00,60,0',
      '3,u1,vc1,j,1,4,1,COMPLETED,2020-06-09 18:02:00,2020-06-09 18:02:00,2020-06-09 18:03:00,60,0',
    ].join('\n');
    const parsed = parseHelios(text, 'c.csv');
    assert.deepEqual(
      parsed.jobs.map((j) => [j.id, j.submitTime, j.duration]),
      [
        ['1', 0, 3600],
        ['3', 120, 60],
      ],
    );
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'c.csv:3: end_time: expected a time after start_time (the job must have run), got "2020-06-09 18:01:00"',
      'c.csv:4: submit_time: expected a date-time YYYY-MM-DD HH:MM:SS, got "2020-13-09 18:02:00"',
      'c.csv:6: job_id: duplicate job id (first used at line 5), got "3"',
    ]);
  });

  test('needs a duration or start and end times', () => {
    assert.throws(
      () => parseHelios('job_id,gpu_num,submit_time\n1,1,2020-06-09 18:00:00\n', 'c.csv'),
      (e: Error) =>
        e instanceof TraceFormatError && /duration column or start_time and end_time/.test(e.message),
    );
  });
});
