import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readJobFile } from '../../../lib/cli/job-file.ts';

const job = `model: resnet50
batchSize: 64
gpus: 2
iterations: 100
command: [python3, train.py]
`;

const jobsOf = (text: string, settings: string[] = []) => {
  const result = readJobFile(text, settings);
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.issues));
  return result.jobs;
};

describe('readJobFile', () => {
  test('one YAML job, and the same job as JSON', () => {
    const [yaml] = jobsOf(job);
    const [json] = jobsOf(JSON.stringify(yaml!.document));
    assert.deepEqual(yaml!.document, {
      model: 'resnet50',
      batchSize: 64,
      gpus: 2,
      iterations: 100,
      command: ['python3', 'train.py'],
    });
    assert.deepEqual(json!.document, yaml!.document);
  });

  test('a local workdir is checked as if uploaded and kept for tessera submit to upload', () => {
    const [one] = jobsOf(`${job}workdir: ./myproj\nsetup: [make]\nimage: ubuntu:24.04\n`);
    assert.equal(one!.document.workdir, './myproj');
    const [uploaded] = jobsOf(`${job}workdir: s3://b-1/workdirs/${'0'.repeat(64)}.tar.gz\n`);
    assert.match(String(uploaded!.document.workdir), /^s3:/);
    const bad = readJobFile(`${job}workdir: s3://b-1/elsewhere.tar.gz\nimage: "Bad Image"\n`);
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.ok ? [] : bad.issues.map((i) => i.field).sort(), ['image', 'workdir']);
  });

  test('a list of jobs, or { jobs: [...] }', () => {
    const list = jobsOf(
      `- ${job.trim().split('\n').join('\n  ')}\n- ${job.trim().replace('gpus: 2', 'gpus: 4').split('\n').join('\n  ')}\n`,
    );
    assert.deepEqual(
      list.map((j) => [j.label, j.document.gpus]),
      [
        ['jobs[0]', 2],
        ['jobs[1]', 4],
      ],
    );
    const wrapped = jobsOf(JSON.stringify({ jobs: list.map((j) => j.document) }));
    assert.equal(wrapped.length, 2);
  });

  test('a sweep expands to the cartesian product, with distinct names and client tokens', () => {
    const jobs = jobsOf(
      `${job}name: lr-search\nclientToken: search-1\nsweep:\n  batchSize: [32, 64]\n  env.LR: ["0.1", "0.01"]\n`,
    );
    assert.equal(jobs.length, 4);
    assert.deepEqual(
      jobs.map((j) => [j.document.batchSize, (j.document.env as Record<string, string>).LR]),
      [
        [32, '0.1'],
        [32, '0.01'],
        [64, '0.1'],
        [64, '0.01'],
      ],
    );
    assert.equal(new Set(jobs.map((j) => j.document.clientToken)).size, 4);
    assert.equal(jobs[0]!.document.name, 'lr-search-batchSize-32-env.LR-0.1');
    assert.equal(jobs[0]!.label, 'sweep[batchSize=32,env.LR=0.1]');
    assert.ok(jobs.every((j) => !('sweep' in j.document)));
  });

  test('--set overrides every job; values are read as YAML', () => {
    const [only] = jobsOf(job, ['gpus=8', 'gpuTypes=[A100]', 'env.SEED=7']);
    assert.equal(only!.document.gpus, 8);
    assert.deepEqual(only!.document.gpuTypes, ['A100']);
    assert.deepEqual(only!.document.env, { SEED: '7' });
  });

  test('problems name the job and the field, and nothing is returned', () => {
    const result = readJobFile(
      `- ${job.trim().split('\n').join('\n  ')}\n- model: no such model\n  gpus: 0\n`,
    );
    assert.equal(result.ok, false);
    const issues = result.ok ? [] : result.issues;
    assert.ok(issues.every((i) => i.job === 'jobs[1]'));
    const fields = issues.map((i) => i.field);
    assert.ok(
      fields.includes('model') && fields.includes('gpus') && fields.includes('batchSize'),
      fields.join(),
    );
    assert.match(issues.find((i) => i.field === 'model')!.rule, /"no such model" is not a catalog model/);
  });

  test('bad sweeps, bad --set and unparseable files are reported, not thrown', () => {
    const sweep = readJobFile(`${job}sweep:\n  gpus: 4\n`);
    assert.deepEqual(sweep.ok ? [] : sweep.issues.map((i) => i.field), ['sweep.gpus']);
    const set = readJobFile(job, ['gpus']);
    assert.deepEqual(set.ok ? [] : set.issues.map((i) => i.field), ['--set']);
    const broken = readJobFile('model: [unclosed');
    assert.deepEqual(broken.ok ? [] : broken.issues.map((i) => i.field), ['(document)']);
  });
});

describe('readJobFile: files that hold no job', () => {
  const issuesOf = (text: string) => {
    const result = readJobFile(text);
    assert.equal(result.ok, false);
    return result.ok ? [] : result.issues.map((i) => `${i.job}: ${i.field}: ${i.rule}`);
  };

  test('an empty file says so', () => {
    assert.deepEqual(issuesOf(''), ['(file): (document): is empty: no job in it']);
    assert.deepEqual(issuesOf('# only a comment\n'), ['(file): (document): is empty: no job in it']);
  });

  test('malformed YAML names the line and column, without a dangling colon', () => {
    const [issue] = issuesOf('model: resnet50\n  gpus: 2\nbatchSize: [\n');
    assert.match(issue!, /^\(file\): \(document\): must be YAML or JSON \(.* at line \d+, column \d+\)$/);
  });
});
