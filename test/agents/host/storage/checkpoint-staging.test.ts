// Checkpoint staging on its own, with a stand-in S3 store (the real one is tested against s3rver beside this):
// the local directory mapping, the non-blocking listing cache, confirmation only after upload, local cleanup.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { CheckpointStaging } from '../../../../agents/host/storage/checkpoint-staging.ts';
import type { S3CheckpointStore } from '../../../../agents/host/storage/s3-checkpoint-store.ts';
import { tempDir } from '../helpers.ts';

const URI = 's3://bucket/jobs/job-1/checkpoints';

function fakeStore(behaviour: { newest?: number | null; failUploads?: boolean } = {}) {
  const calls: string[] = [];
  const store = {
    newestComplete: async (uri: string) => {
      calls.push(`list ${uri}`);
      return behaviour.newest ?? null;
    },
    upload: async (_uri: string, step: number) => {
      calls.push(`upload ${step}`);
      if (behaviour.failUploads) throw new Error('S3 unavailable');
      return { files: 2, bytes: 10 };
    },
    download: async (_uri: string, step: number, dir: string) => {
      calls.push(`download ${step}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'COMPLETE'), '');
      return { files: 1, bytes: 0 };
    },
  };
  return { store: store as unknown as S3CheckpointStore, calls };
}

function writeLocalStep(staging: CheckpointStaging, step: number): void {
  const dir = join(staging.localDir(URI), `step-${step}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'COMPLETE'), `${step}\n`);
}

describe('CheckpointStaging', () => {
  test('maps an S3 root to a local directory and a trainer report URI back to S3', () => {
    const dir = tempDir();
    const staging = new CheckpointStaging({ store: fakeStore().store, stateDir: dir.path });
    assert.equal(
      staging.localDir(URI),
      join(dir.path, 'checkpoints', 'bucket', 'jobs', 'job-1', 'checkpoints'),
    );
    const reported = `${staging.localUri(URI)}/step-40`;
    assert.deepEqual(staging.stagedStep(reported), { rootUri: URI, step: 40, stepUri: `${URI}/step-40` });
    assert.equal(staging.stagedStep(pathToFileURL(join(dir.path, 'elsewhere', 'step-4')).href), undefined);
    assert.equal(staging.stagedStep(`${staging.localUri(URI)}/not-a-step`), undefined);
    dir.cleanup();
  });

  test('newestComplete answers from memory at once and refreshes the listing in the background', async () => {
    const dir = tempDir();
    const { store, calls } = fakeStore({ newest: 25 });
    const staging = new CheckpointStaging({ store, stateDir: dir.path, listingTtlMs: 60_000 });
    assert.equal(staging.newestComplete(URI), null, 'nothing known yet: no waiting on S3');
    assert.equal(await staging.refreshed(URI), 25);
    assert.equal(staging.newestComplete(URI), 25);
    assert.equal(calls.filter((c) => c.startsWith('list')).length, 1, 'cached within the TTL');
    dir.cleanup();
  });

  test('an uploaded step is confirmed and older local steps are removed; a failed upload confirms nothing', async () => {
    const dir = tempDir();
    const staging = new CheckpointStaging({
      store: fakeStore().store,
      stateDir: dir.path,
      listingTtlMs: 60_000,
    });
    writeLocalStep(staging, 10);
    writeLocalStep(staging, 20);
    assert.equal(await staging.upload(staging.stagedStep(`${staging.localUri(URI)}/step-20`)!), true);
    assert.equal(staging.newestComplete(URI), 20);
    assert.equal(existsSync(join(staging.localDir(URI), 'step-10')), false);
    assert.equal(existsSync(join(staging.localDir(URI), 'step-20', 'COMPLETE')), true);

    const failing = new CheckpointStaging({
      store: fakeStore({ failUploads: true }).store,
      stateDir: dir.path,
      attempts: 2,
      retryDelayMs: 1,
    });
    assert.equal(await failing.upload({ rootUri: URI, step: 30, stepUri: `${URI}/step-30` }), false);
    assert.equal(failing.newestComplete(URI), null);
    dir.cleanup();
  });

  test('prepare downloads the resume step only when no complete local copy exists', async () => {
    const dir = tempDir();
    const { store, calls } = fakeStore();
    const staging = new CheckpointStaging({ store, stateDir: dir.path });
    await staging.prepare(URI, -1);
    writeLocalStep(staging, 5);
    await staging.prepare(URI, 5);
    await Promise.all([staging.prepare(URI, 9), staging.prepare(URI, 9)]);
    assert.deepEqual(
      calls.filter((c) => c.startsWith('download')),
      ['download 9'],
    );
    dir.cleanup();
  });
});
