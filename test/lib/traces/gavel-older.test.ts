import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectFormat } from '../../../lib/traces/detect.ts';
import { parseOlderGavel } from '../../../lib/traces/gavel-older.ts';
import { parseTrace } from '../../../lib/traces/parse.ts';
import { readTrace } from '../../../lib/traces/read.ts';
import { formatIssue, TraceFormatError } from '../../../lib/traces/types.ts';
import { fixturePath, readFixture } from './fixtures.ts';

const row = (fields: readonly string[]): string => fields.join('\t');

describe('gavel-msr: 7 fields (job_type, command, num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor)', () => {
  const trace = readTrace(fixturePath('gavel-msr-0e4a51.trace'));

  test('detected by field count; job type, steps, arrival and scale factor of each real line', () => {
    assert.equal(trace.format, 'gavel-msr');
    assert.deepEqual(trace.issues, []);
    assert.equal(trace.jobs.length, 10);
    assert.deepEqual(trace.jobs[0], {
      id: 'gavel-msr-1',
      submitTime: 0,
      gpus: 1,
      referenceSteps: 95121, // Gavel's unit, turned into run time by lib/sim/workload.ts
      model: 'transformer',
      batchSize: 128,
      labels: { jobType: 'Transformer (batch size 128)', arrival_time: '0.000000' },
    });
    const fourGpus = trace.jobs.find((j) => j.id === 'gavel-msr-7')!;
    assert.equal(fourGpus.gpus, 4);
    assert.equal(
      fourGpus.batchSize,
      128 * 4,
      "Gavel's per-worker batch × scale factor: Tessera batches are global",
    );
    assert.equal(fourGpus.submitTime, 291278);
    assert.equal(trace.jobs.find((j) => j.id === 'gavel-msr-10')?.model, 'a3c');
    assert.equal(trace.referenceHostGpus, 8);
  });

  test('a malformed row is an issue naming its line and field; the others import', () => {
    const base = ['LM (batch size 5)', 'cd %s && python main.py', '--steps'];
    const text = [
      row([...base, '1', '2799809', '12.000000', '1']),
      row([...base, '2', '2799809', '13.000000', '1']),
      row([...base, '1', '2799809', '14.000000', '0']),
      row([...base, '1', 'many', '15.000000', '1']),
      row([...base, '1', '2799809', '16.000000']),
    ].join('\n');
    const parsed = parseOlderGavel(text, 'msr.trace', 'gavel-msr');
    assert.deepEqual(
      parsed.jobs.map((j) => j.id),
      ['gavel-msr-1'],
    );
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'msr.trace:2: needs_data_dir: expected 0 or 1, got "2"',
      'msr.trace:3: scale_factor: expected a positive integer, got "0"',
      'msr.trace:4: total_steps: expected a positive integer, got "many"',
      'msr.trace:5: expected 7 tab-separated fields, got 6',
    ]);
  });
});

describe('gavel-steps: 6 fields (job_type, command, num_steps_arg, total_steps, arrival_time, scale_factor)', () => {
  const trace = parseTrace(readFixture('gavel-steps-arrival_rate_1.trace'), 'arrival_rate_1.trace');

  test('bare job types, steps kept as referenceSteps, no batch size (the catalog default applies later)', () => {
    assert.equal(trace.format, 'gavel-steps');
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(
      trace.jobs.map((j) => [j.model, j.referenceSteps, j.submitTime, j.gpus, j.batchSize]),
      [
        ['recommendation', 2721, 0, 1, undefined],
        ['lm', 978676, 1, 1, undefined],
        ['cyclegan', 700224, 1, 1, undefined],
        ['resnet18', 5376266, 1, 1, undefined],
        ['resnet50', 31918, 1, 1, undefined],
        ['transformer', 2961135, 4, 1, undefined],
        ['a3c', 684945, 9, 1, undefined],
      ],
    );
  });

  test('malformed rows name their line', () => {
    const text = [
      row(['ResNet-50', 'python3 main.py', '--num_minibatches', '31918', '1', '1']),
      row(['ResNet-50', 'python3 main.py', '--num_minibatches', '31918', '-4', '1']),
      row(['', 'python3 main.py', '--num_minibatches', '31918', '5', '1']),
    ].join('\n');
    const parsed = parseOlderGavel(text, 'mb.trace', 'gavel-steps');
    assert.equal(parsed.jobs.length, 1);
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'mb.trace:2: arrival_time: expected a number ≥ 0, got "-4"',
      'mb.trace:3: job_type: expected a non-empty value, got ""',
    ]);
  });
});

describe('gavel-poisson: 5 fields (arrival_time, model_name, cmd, duration per step, num_epochs)', () => {
  const trace = readTrace(fixturePath('gavel-poisson-long.trace'));

  test('run time = seconds per step × steps; single-GPU; models outside the catalog keep only their name', () => {
    assert.equal(trace.format, 'gavel-poisson');
    assert.deepEqual(trace.issues, []);
    const first = trace.jobs[0]!;
    assert.equal(first.gpus, 1);
    assert.ok(Math.abs(first.duration! - 612.2563746005238 * 200) < 1e-6);
    assert.equal(first.model, undefined, 'nmt is not in the catalog: the simulator assigns a model');
    assert.equal(first.labels?.jobType, 'nmt');
    assert.deepEqual(
      trace.jobs.map((j) => j.model ?? `(${j.labels?.jobType})`),
      [
        '(nmt)',
        'inception3',
        '(lm_large)',
        '(lm_large)',
        'vgg16',
        'inception3',
        '(lm_large)',
        'resnet50',
        '(vae)',
        'vgg16',
      ],
    );
  });

  test('malformed rows name their line', () => {
    const text = [
      '0\tvgg16\techo "vgg16"\t1.5\t200',
      '10\tvgg16\techo "vgg16"\t0\t200',
      '20\tvgg16\techo "vgg16"\t1.5\t2.5',
    ].join('\n');
    const parsed = parseOlderGavel(text, 'p.trace', 'gavel-poisson');
    assert.deepEqual(parsed.issues.map(formatIssue), [
      'p.trace:2: duration: expected a positive number, got "0"',
      'p.trace:3: num_epochs: expected a positive integer, got "2.5"',
    ]);
  });
});

describe('layout checks', () => {
  test('detection by field count: 10 gavel, 12 shockwave, 7/6/5 the older layouts; other counts are refused', () => {
    const line = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join('\t');
    assert.equal(detectFormat(line(7), 'x.trace'), 'gavel-msr');
    assert.equal(detectFormat(line(6), 'x.trace'), 'gavel-steps');
    assert.equal(detectFormat(line(5), 'x.trace'), 'gavel-poisson');
    assert.throws(() => detectFormat(line(8), 'x.trace'), TraceFormatError);
  });

  test('a forced format with the wrong field count says what it expected', () => {
    assert.throws(
      () => parseTrace(readFixture('gavel-poisson-long.trace'), 'p.trace', { format: 'gavel-msr' }),
      /p\.trace:1: not a gavel-msr trace: expected 7 tab-separated fields .*got 5/,
    );
  });
});
