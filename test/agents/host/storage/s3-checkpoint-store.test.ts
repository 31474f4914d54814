// The S3 side of checkpoint staging against the local endpoint's real S3 (s3rver): what counts as complete,
// COMPLETE uploaded last, multipart for large files, downloads that are all or nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { S3CheckpointStore } from '../../../../agents/host/storage/s3-checkpoint-store.ts';
import { tempDir } from '../helpers.ts';
import { BUCKET, type LocalS3, startLocalS3 } from '../s3-staging.ts';

let s3: LocalS3;
const dir = tempDir('tessera-s3-store-');
before(async () => {
  s3 = await startLocalS3();
});
after(async () => {
  await s3?.stop();
  dir.cleanup();
});

function writeStep(root: string, step: number, files: Record<string, string | Buffer>): string {
  const path = join(root, `step-${step}`);
  mkdirSync(join(path, 'sub'), { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(path, name), body);
  return path;
}

describe('S3CheckpointStore', () => {
  test('uploads every file with COMPLETE last, in multipart for a large file, and downloads it back', async () => {
    const uri = s3.checkpointUri('upload');
    const weights = randomBytes(6 * 1024 * 1024 + 3);
    const local = writeStep(join(dir.path, 'up'), 7, {
      'state.json': '{"step":7}',
      'sub/est-0.pt': 'est',
      'weights.bin': weights,
      COMPLETE: '7\n',
    });
    const requests: string[] = [];
    s3.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: string };
        if (input.Key?.includes('/upload/'))
          requests.push(`${context.commandName} ${input.Key.split('/step-7/')[1]}`);
        return next(args);
      },
      { step: 'initialize', name: 'recordRequests' },
    );
    try {
      const stats = await s3.store.upload(uri, 7, local);
      assert.deepEqual(stats, { files: 4, bytes: weights.length + 10 + 3 + 2 });
    } finally {
      s3.client.middlewareStack.remove('recordRequests');
    }
    assert.equal(requests.at(-1), 'PutObjectCommand COMPLETE', `COMPLETE last: ${requests.join(', ')}`);
    assert.ok(requests.includes('CreateMultipartUploadCommand weights.bin'), requests.join(', '));
    assert.equal(await s3.store.newestComplete(uri), 7);

    const restored = join(dir.path, 'down', 'step-7');
    await s3.store.download(uri, 7, restored);
    assert.ok(readFileSync(join(restored, 'weights.bin')).equals(weights));
    assert.equal(readFileSync(join(restored, 'sub', 'est-0.pt'), 'utf8'), 'est');
    assert.equal(readFileSync(join(restored, 'COMPLETE'), 'utf8'), '7\n');
  });

  test('the newest step with COMPLETE wins; a newer step without it is not a checkpoint', async () => {
    const uri = s3.checkpointUri('listing');
    assert.equal(await s3.store.newestComplete(uri), null);
    for (const step of [3, 12]) {
      await s3.store.upload(
        uri,
        step,
        writeStep(join(dir.path, 'list'), step, { 'a.txt': 'a', COMPLETE: '' }),
      );
    }
    await s3.client.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'jobs/listing/checkpoints/step-20/a.txt',
        Body: 'partial',
      }),
    );
    assert.equal(await s3.store.newestComplete(uri), 12);
  });

  test('downloading an incomplete step fails and leaves nothing behind', async () => {
    const target = join(dir.path, 'incomplete', 'step-20');
    await assert.rejects(s3.store.download(s3.checkpointUri('listing'), 20, target), /not complete in S3/);
    assert.equal(existsSync(target), false);
  });

  test('a step directory without COMPLETE is not uploaded', async () => {
    const local = writeStep(join(dir.path, 'nocomplete'), 5, { 'a.txt': 'a' });
    await assert.rejects(
      new S3CheckpointStore(s3.client).upload(s3.checkpointUri('x'), 5, local),
      /no COMPLETE/,
    );
  });
});
