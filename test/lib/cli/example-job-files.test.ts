// The job files a new user is pointed at (`npm start` prints `npx tessera submit docs/examples/job.yaml`) exist,
// pass the job-spec schema, and run the simulated trainer by a path that exists where the local cloud's agents
// start workers (the repository's directory).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { readJobFile } from '../../../lib/cli/job-file.ts';

const ROOT = join(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const jobsOf = (path: string) => {
  const result = readJobFile(read(path));
  assert.ok(result.ok, result.ok ? '' : JSON.stringify(result.issues));
  return result.jobs;
};

describe('example job files', () => {
  test('every docs/examples file the local cloud suggests exists', () => {
    const named = read('lib/cli/local-cloud.ts').match(/docs\/examples\/[\w.-]+/g) ?? [];
    assert.ok(named.length > 0, 'the local cloud names an example to submit');
    for (const path of named) assert.ok(existsSync(join(ROOT, path)), `${path} is missing`);
  });

  test('job.yaml is one valid job whose worker script exists in the repository', () => {
    const [job, ...rest] = jobsOf('docs/examples/job.yaml');
    assert.equal(rest.length, 0);
    const command = job!.document.command as string[];
    assert.equal(command[0], 'node');
    assert.ok(existsSync(join(ROOT, command[1]!)), `${command[1]} does not exist`);
  });

  test('sweep.yaml expands to 2 × 3 jobs with distinct names and client tokens', () => {
    const jobs = jobsOf('docs/examples/sweep.yaml');
    assert.equal(jobs.length, 6);
    assert.equal(new Set(jobs.map((j) => j.document.name)).size, 6);
    assert.equal(new Set(jobs.map((j) => j.document.clientToken)).size, 6);
    assert.deepEqual(
      jobs.map((j) => [j.document.batchSize, (j.document.env as Record<string, string>).LR]),
      [
        [64, '0.1'],
        [64, '0.01'],
        [64, '0.001'],
        [128, '0.1'],
        [128, '0.01'],
        [128, '0.001'],
      ],
    );
  });
});
