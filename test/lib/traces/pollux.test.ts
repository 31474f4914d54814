import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parsePollux } from '../../../lib/traces/pollux.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

describe('parsePollux', () => {
  test('reads a real workload: replicas as GPUs, application as model, batch size', () => {
    const trace = parsePollux(readFixture('pollux-workload-1.csv'), 'workload-1.csv');
    assert.equal(trace.format, 'pollux');
    assert.equal(trace.jobs.length, 13);
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(trace.jobs[0], {
      id: 'cifar10-0',
      submitTime: 0,
      gpus: 6,
      model: 'cifar10',
      batchSize: 2048,
      labels: { time: '107', application: 'cifar10' },
    });
    const imagenet = trace.jobs.find((j) => j.id === 'imagenet-11');
    assert.deepEqual([imagenet?.submitTime, imagenet?.gpus, imagenet?.batchSize], [1604 - 107, 32, 6400]);
    assert.ok(trace.jobs.every((j) => j.duration === undefined));
  });

  test('malformed rows and repeated names become issues', () => {
    const text = [
      'name,time,application,num_replicas,batch_size',
      'a,10,cifar10,2,128',
      'b,20,,1,128',
      'c,x,ncf,1,32768',
      'a,30,bert,4,384',
      'd,40,bert,4,-1',
    ].join('\n');
    const trace = parsePollux(text, 'w.csv');
    assert.deepEqual(
      trace.jobs.map((j) => j.id),
      ['a'],
    );
    assert.deepEqual(trace.issues.map(formatIssue), [
      'w.csv:3: application: expected a non-empty value, got ""',
      'w.csv:4: time: expected a number ≥ 0, got "x"',
      'w.csv:5: name: duplicate job id (first used at line 2), got "a"',
      'w.csv:6: batch_size: expected a positive integer, got "-1"',
    ]);
  });

  test('needs its five columns', () => {
    assert.throws(() => parsePollux('name,time,application\na,1,b\n', 'w.csv'), TraceFormatError);
  });
});
