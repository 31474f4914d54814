import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseGavel, parseShockwave } from '../../../lib/traces/gavel.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { readFixture } from './fixtures.ts';

describe('parseGavel', () => {
  const trace = parseGavel(readFixture('gavel-artifact_evaluation.trace'), 'artifact_evaluation.trace');

  test('reads job type, steps, scale factor and priority of each real line', () => {
    assert.equal(trace.format, 'gavel');
    assert.equal(trace.jobs.length, 8);
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(trace.jobs[1], {
      id: 'gavel-2',
      submitTime: 0,
      gpus: 2,
      referenceSteps: 11005, // Gavel's unit (summed over workers), not Tessera iterations
      priority: 1,
      model: 'transformer',
      batchSize: 32, // Gavel's per-worker batch 16 × scale factor 2: Tessera batches are global
      labels: { jobType: 'Transformer (batch size 16)', arrival_time: '0' },
    });
  });

  test('keeps file order for equal arrival times and reads bare model names', () => {
    assert.deepEqual(
      trace.jobs.map((j) => j.id),
      ['gavel-1', 'gavel-2', 'gavel-3', 'gavel-4', 'gavel-5', 'gavel-6', 'gavel-7', 'gavel-8'],
    );
    assert.deepEqual(trace.jobs[6]?.model, 'cyclegan');
    assert.equal(trace.jobs[6]?.batchSize, undefined);
    assert.equal(trace.jobs[7]?.model, 'a3c');
    assert.equal(trace.jobs[0]?.model, 'resnet50');
  });

  test('rows with wrong fields become issues; a positive SLO is kept as a label', () => {
    const row = (fields: string[]) => fields.join('\t');
    const base = ['ResNet-50 (batch size 64)', 'python3 main.py', 'imagenet', '--num_minibatches', '1'];
    const text = [
      row([...base, '7931', '1', '1', '-1.000000', '30']),
      row([...base, '7931', '4', '5', '2.0', '10']),
      row([...base, '-3', '1', '1', '-1', '40']),
      row([...base, '100', 'two', '1', '-1', '50']),
      row([...base, '100', '1', '1', '-1']),
      row(['(batch size 8)', ...base.slice(1), '100', '1', '1', '-1', '60']),
    ].join('\n');
    const parsed = parseGavel(text, 'g.trace');
    assert.deepEqual(
      parsed.jobs.map((j) => [j.id, j.submitTime, j.gpus, j.priority, j.labels?.slo]),
      [
        ['gavel-2', 0, 4, 5, '2'],
        ['gavel-1', 20, 1, 1, undefined],
      ],
    );
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'g.trace:3: total_steps: expected a positive integer, got "-3"',
      'g.trace:4: scale_factor: expected a positive integer, got "two"',
      'g.trace:5: expected 10 tab-separated fields, got 9',
      'g.trace:6: job_type: expected a model name, optionally with "(batch size N)", got "(batch size 8)"',
    ]);
  });

  test('a Shockwave trace given as Gavel is refused with a hint', () => {
    assert.throws(
      () => parseGavel(readFixture('shockwave-120jobs.trace'), 's.trace'),
      (e: Error) =>
        e instanceof TraceFormatError &&
        /expected 10 tab-separated fields/.test(e.message) &&
        /shockwave/.test(e.message),
    );
  });
});

describe('parseShockwave', () => {
  const trace = parseShockwave(readFixture('shockwave-120jobs.trace'), 'shockwave-120jobs.trace');

  test('reads mode and duration besides the Gavel fields', () => {
    assert.equal(trace.format, 'shockwave');
    assert.equal(trace.jobs.length, 11);
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(trace.jobs[1], {
      id: 'shockwave-2',
      submitTime: 55,
      gpus: 1,
      referenceSteps: 143450,
      priority: 1,
      model: 'resnet18',
      batchSize: 32,
      duration: 3338,
      labels: { jobType: 'ResNet-18 (batch size 32)', arrival_time: '55', mode: 'accordion' },
    });
    assert.deepEqual(
      trace.jobs.map((j) => j.submitTime),
      [0, 55, 64, 73, 109, 112, 346, 1064, 1322, 1393, 3698],
    );
    assert.equal(trace.jobs.at(-2)?.gpus, 4);
  });

  test('a Gavel trace given as Shockwave is refused', () => {
    assert.throws(
      () => parseShockwave(readFixture('gavel-artifact_evaluation.trace'), 'g.trace'),
      TraceFormatError,
    );
  });
});
