import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { detectFormat } from '../../../lib/traces/detect.ts';
import { parseJobsFile } from '../../../lib/traces/jobs-file.ts';
import { parseTrace } from '../../../lib/traces/parse.ts';
import { TraceFormatError } from '../../../lib/traces/types.ts';

const EXAMPLE = fileURLToPath(new URL('../../../docs/examples/own-models.yaml', import.meta.url));

describe('jobs files', () => {
  test('the documented example: models outside the catalog keep their declared and actual profiles', () => {
    const trace = parseTrace(readFileSync(EXAMPLE, 'utf8'), EXAMPLE);
    assert.equal(trace.format, 'jobs');
    assert.deepEqual(trace.issues, []);
    assert.deepEqual(
      trace.jobs.map((j) => [j.id, j.model, j.submitTime]),
      [
        ['tuned-llm', 'acme/llm-350m', 0],
        ['vision', 'acme/vit-b16', 120],
        ['chain', 'acme/tiny-gpt', 300],
        ['resnet', 'resnet50', 60],
        ['bert', 'bert-large', 600],
      ],
    );
    const [llm, vision, chain] = trace.jobs;
    assert.equal(llm!.profile, undefined);
    assert.equal(llm!.actualProfile?.parameters, 3.5e8);
    assert.equal(vision!.profile?.flopsPerSample, 1.05e11);
    assert.equal(chain!.profile?.layers?.length, 4);
    assert.equal(chain!.iterations, 20000);
  });

  test('JSON works too; times are re-based to the first arrival, deadlines with them', () => {
    const text = JSON.stringify([
      { model: 'x', submitTime: 100, batchSize: 8, gpus: 1, iterations: 10, deadline: 500 },
      { model: 'y', submitTime: 160, batchSize: 8, gpus: 2, duration: 60 },
    ]);
    assert.equal(detectFormat(text, 'mine.json'), 'jobs');
    const trace = parseJobsFile(text, 'mine.json');
    assert.deepEqual(
      trace.jobs.map((j) => [j.id, j.submitTime, j.deadline]),
      [
        ['job-1', 0, 400],
        ['job-2', 60, undefined],
      ],
    );
  });

  test('a bad entry is left out with its line, field and rule; the rest is kept', () => {
    const text = [
      'jobs:',
      '  - { model: a, submitTime: 0, batchSize: 8, gpus: 1, iterations: 5 }',
      '  - model: b',
      '    submitTime: 0',
      '    gpus: 0',
      '    profile: { parameters: 1.0e8 }',
      '',
    ].join('\n');
    const trace = parseJobsFile(text, 'jobs.yaml');
    assert.deepEqual(
      trace.jobs.map((j) => j.model),
      ['a'],
    );
    const found = trace.issues.map((i) => `${i.line} ${i.field}: ${i.message}`);
    assert.ok(found.includes('3 gpus: must be at least 1'), found.join('\n'));
    assert.ok(
      found.some((f) => f.startsWith('3 profile.flopsPerSample: is required')),
      found.join('\n'),
    );
    assert.ok(found.includes('3 duration: give exactly one of duration and iterations'), found.join('\n'));
    assert.throws(() => parseJobsFile('jobs: 3\n', 'x.yaml'), TraceFormatError);
    assert.throws(
      () =>
        parseJobsFile(
          '[{ id: a, model: m, submitTime: 0, gpus: 1, iterations: 1 }, { id: a, model: m, submitTime: 0, gpus: 1, iterations: 1 }]',
          'x.yaml',
        ),
      /appears twice/,
    );
  });
});
