import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadTrace, MissingSharedDataError, phillyTracePath } from '../../../lib/traces/load.ts';
import { fixturePath } from './fixtures.ts';

describe('phillyTracePath', () => {
  test('uses $TESSERA_DATA_DIR when set, else <repo>/../shared/data', () => {
    assert.equal(phillyTracePath({ TESSERA_DATA_DIR: '/data' }), join('/data', 'philly', 'philly-jobs.csv'));
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    assert.equal(phillyTracePath({}), join(repo, '..', 'shared', 'data', 'philly', 'philly-jobs.csv'));
  });
});

describe('loadTrace', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-data-'));
  mkdirSync(join(dataDir, 'philly'));
  copyFileSync(fixturePath('philly-jobs.csv'), join(dataDir, 'philly', 'philly-jobs.csv'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { TESSERA_DATA_DIR: dataDir };

  test('resolves builtins: the Philly list and Philly-sized workloads', () => {
    assert.equal(loadTrace('philly', { env }).jobs.length, 17);
    const poisson = loadTrace('poisson:25:30', { env, seed: 4 });
    assert.equal(poisson.jobs.length, 25);
    assert.deepEqual(poisson, loadTrace('poisson:25:30', { env, seed: 4 }));
    assert.equal(loadTrace('gavel:10:80', { env, seed: 4 }).jobs.length, 10);
  });

  test('reads anything else as a file, with the given format', () => {
    assert.equal(loadTrace(fixturePath('tiresias-60_job.csv'), { format: 'tiresias' }).format, 'tiresias');
    assert.throws(
      () => loadTrace(join(dataDir, 'none.csv')),
      /^TraceFormatError: no trace file .*none\.csv; builtin traces:/,
    );
  });
});

test('a missing shared data directory is named, with how to get it, instead of ENOENT', () => {
  assert.throws(
    () => loadTrace('philly', { env: { TESSERA_DATA_DIR: '/nonexistent/data' } }),
    (error: unknown) =>
      error instanceof MissingSharedDataError &&
      error.message.includes('/nonexistent/data/philly/philly-jobs.csv') &&
      /TESSERA_DATA_DIR/.test(error.message) &&
      /--trace gavel:200:2/.test(error.message),
  );
});
