// The step of `tessera submit` that brings local working directories to the cluster: errors come before any API
// call or upload, jobs without a local workdir are passed through untouched.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { bringWorkdirs } from '../../../../lib/cli/workdir/bring-workdirs.ts';

const dir = mkdtempSync(join(tmpdir(), 'tessera-bring-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const api = (bucket: string | null) => {
  const calls: string[] = [];
  return {
    calls,
    client: {
      config: async () => {
        calls.push('config');
        return { bucket, workdirPrefix: 'workdirs/' };
      },
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      region: 'us-east-1',
    },
  };
};

describe('bringWorkdirs', () => {
  test('jobs without a local workdir: nothing asked, nothing changed', async () => {
    const { client, calls } = api('b');
    const uri = `s3://b/workdirs/${'1'.repeat(64)}.tar.gz`;
    const jobs = [{ document: { command: ['x'] } }, { document: { workdir: uri } }];
    assert.deepEqual(await bringWorkdirs(jobs, client, { baseDir: dir }), jobs);
    assert.deepEqual(calls, []);
  });

  test('a missing directory is reported before the API is asked', async () => {
    const { client, calls } = api('b');
    await assert.rejects(
      bringWorkdirs([{ document: { workdir: './nope' } }], client, { baseDir: dir }),
      new RegExp(`^WorkdirError: workdir \\./nope: no such directory \\(${dir}/nope\\)$`),
    );
    assert.deepEqual(calls, []);
  });

  test('a cluster without a bucket is an error that says what to do', async () => {
    const { client, calls } = api(null);
    await assert.rejects(
      bringWorkdirs([{ document: { workdir: '.' } }], client, { baseDir: dir }),
      /the cluster has no bucket for working directories .*give workdir as an s3:\/\/ URI/,
    );
    assert.deepEqual(calls, ['config']);
  });

  test('through the CLI: one line on stderr, exit code 1, nothing submitted', () => {
    const file = join(dir, 'job.yaml');
    writeFileSync(
      file,
      'model: resnet50\nbatchSize: 8\ngpus: 1\niterations: 10\ncommand: [python3, train.py]\nworkdir: ./myproj\n',
    );
    const run = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '../../../../bin/tessera-cli.mjs'), 'submit', file],
      {
        encoding: 'utf8',
        env: {
          ...process.env,
          TESSERA_ENDPOINT: 'http://127.0.0.1:9/v1/',
          AWS_ACCESS_KEY_ID: 'a',
          AWS_SECRET_ACCESS_KEY: 'b',
        },
      },
    );
    assert.equal(run.status, 1, run.stderr);
    assert.equal(run.stderr.trim(), `tessera: workdir ./myproj: no such directory (${join(dir, 'myproj')})`);
  });
});
