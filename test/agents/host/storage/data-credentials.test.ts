import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HostDataCredentials } from '../../../../agents/host/storage/data-credentials.ts';

const set = (jobIds: string[], accessKeyId: string, expiresAt: number, workdirKeys?: string[]) => ({
  jobIds,
  accessKeyId,
  secretAccessKey: 's',
  sessionToken: 't',
  expiresAt,
  ...(workdirKeys ? { workdirKeys } : {}),
});

describe('HostDataCredentials', () => {
  test('finds the set of a job, of a job key or listing prefix, and of a working directory', () => {
    const store = new HostDataCredentials();
    assert.equal(
      store.update([set(['j1', 'j2'], 'A', 100, ['workdirs/w1.tar.gz']), set(['j3'], 'B', 200)]),
      true,
    );
    assert.equal(store.forJob('j2')?.accessKeyId, 'A');
    assert.equal(store.forKey('jobs/j3/checkpoints/step-1/model.pt')?.accessKeyId, 'B');
    assert.equal(store.forKey('jobs/j1/')?.accessKeyId, 'A');
    assert.equal(store.forKey('workdirs/w1.tar.gz')?.accessKeyId, 'A');
    assert.equal(store.forKey('workdirs/w2.tar.gz'), undefined);
    assert.equal(store.forKey('jobs/j4/x'), undefined);
    assert.equal(store.has('B'), true);
  });

  test('of two sets listing a job, the one that lasts longer', () => {
    const store = new HostDataCredentials();
    store.update([set(['j1'], 'OLD', 100), set(['j1'], 'NEW', 300)]);
    assert.equal(store.forJob('j1')?.accessKeyId, 'NEW');
  });

  test('a malformed attribute keeps the previous sets; an absent one clears them', () => {
    const store = new HostDataCredentials();
    store.update([set(['j1'], 'A', 100)]);
    assert.equal(store.update([{ jobIds: [] }]), false);
    assert.equal(store.forJob('j1')?.accessKeyId, 'A');
    assert.equal(store.update(undefined), true);
    assert.equal(store.forJob('j1'), undefined);
  });
});
