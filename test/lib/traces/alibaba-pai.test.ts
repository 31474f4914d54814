import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAlibabaPai } from '../../../lib/traces/alibaba-pai.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

const jobs = { text: readFixture('pai/pai_job_table.csv'), fileName: 'pai_job_table.csv' };
const tasks = { text: readFixture('pai/pai_task_table.csv'), fileName: 'pai_task_table.csv' };

describe('parseAlibabaPai', () => {
  const trace = parseAlibabaPai(jobs, tasks);

  test('joins tasks to jobs: whole GPUs per instance, run time from task times, user as tenant', () => {
    assert.equal(trace.format, 'alibaba-pai');
    assert.equal(trace.name, 'pai_job_table');
    assert.deepEqual(trace.jobs, [
      {
        id: 'a1c2e3f4a5b6c7d8e9f0a1b2',
        submitTime: 0,
        gpus: 2,
        duration: 4552995 - 4550200,
        gpuType: 'V100',
        tenant: 'd2d3b77d342e',
        labels: { status: 'Terminated', start_time: '4550100.0', tasks: '2' },
      },
      {
        id: 'e5f6a7b8c9d0e1f2a3b4c5d6',
        submitTime: 400,
        gpus: 8,
        duration: 1800,
        gpuType: 'T4',
        tenant: '9a1b2c3d4e5f',
        labels: { status: 'Failed', start_time: '4550500.0', tasks: '1' },
      },
      {
        id: '4b3f04b66a525d2df903eb16',
        submitTime: 779,
        gpus: 1,
        duration: 530,
        gpuType: 'MISC',
        tenant: '58540f191766',
        labels: { status: 'Terminated', start_time: '4550879.0', tasks: '1', gpuRequest: '0.5' },
      },
    ]);
  });

  test('reports CPU-only jobs and jobs whose run time is unknown', () => {
    assert.deepEqual(trace.issues.map(formatIssue), [
      'pai_job_table.csv:3: plan_gpu: CPU-only job left out (no task requests a GPU)',
      'pai_job_table.csv:4: end_time: job left out: its tasks have no start and later end time, so its run time is unknown (status Running)',
    ]);
  });

  test('reports jobs without tasks, orphan tasks, and jobs with a malformed task', () => {
    const jobText = [
      'job_name,inst_id,user,status,start_time,end_time',
      'j1,i1,u1,Terminated,100.0,200.0',
      'j2,i2,u1,Terminated,110.0,200.0',
      'j3,i3,u1,Done,120.0,200.0',
      'j4,i4,u2,Terminated,130.0,300.0',
    ].join('\n');
    const taskText = [
      'j1,worker,2.0,Terminated,101.0,150.0,600.0,10.0,100.0,P100',
      'j4,worker,x,Terminated,131.0,250.0,600.0,10.0,100.0,P100',
      'jX,worker,1.0,Terminated,101.0,150.0,600.0,10.0,100.0,P100',
    ].join('\n');
    const parsed = parseAlibabaPai(
      { text: jobText, fileName: 'job.csv' },
      { text: taskText, fileName: 'task.csv' },
    );
    assert.deepEqual(
      parsed.jobs.map((j) => [j.id, j.gpus, j.duration, j.gpuType]),
      [['j1', 2, 49, 'P100']],
    );
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'job.csv:3: job left out: no tasks in task.csv',
      'job.csv:4: status: expected one of Terminated, Failed, Running, Waiting, got "Done"',
      'job.csv:5: job left out: its task at task.csv:2 is malformed',
      'task.csv:2: inst_num: expected a positive integer, got "x"',
      'task.csv:3: job_name: task of a job not in job.csv, got "jX"',
    ]);
  });

  test('refuses tables of the wrong width, naming the expected columns', () => {
    assert.throws(
      () => parseAlibabaPai(tasks, jobs),
      (e: Error) => e instanceof TraceFormatError && /expected 6 comma-separated fields/.test(e.message),
    );
  });
});
