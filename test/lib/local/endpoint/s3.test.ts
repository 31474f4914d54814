// S3 on the endpoint's one port: the real s3rver behind the router, reached by the ordinary SDK client
// (path-style), including a multipart upload, a streamed body and persistence across a restart.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { type LocalEndpoint, startLocalEndpoint } from '../../../../lib/local/endpoint/index.ts';
import { clientConfig } from './helpers.ts';

let endpoint: LocalEndpoint;
const dataDir = mkdtempSync(join(tmpdir(), 'tessera-s3-test-'));
const s3 = () => new S3Client({ ...clientConfig(endpoint.url), forcePathStyle: true });

before(async () => {
  endpoint = await startLocalEndpoint({ port: 0, dataDir });
});
after(async () => {
  await endpoint?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('local endpoint S3', () => {
  test('puts, lists and gets objects through the endpoint port', async () => {
    const client = s3();
    await client.send(new CreateBucketCommand({ Bucket: 'ckpt' }));
    await client.send(
      new PutObjectCommand({ Bucket: 'ckpt', Key: 'jobs/j1/checkpoints/step-4/COMPLETE', Body: '' }),
    );
    await client.send(
      new PutObjectCommand({
        Bucket: 'ckpt',
        Key: 'jobs/j1/checkpoints/step-4/state.json',
        Body: '{"step":4}',
      }),
    );
    await client.send(
      new PutObjectCommand({ Bucket: 'ckpt', Key: 'jobs/j1/checkpoints/step-12/state.json', Body: '{}' }),
    );

    const listed = await client.send(
      new ListObjectsV2Command({ Bucket: 'ckpt', Prefix: 'jobs/j1/checkpoints/', Delimiter: '/' }),
    );
    assert.deepEqual((listed.CommonPrefixes ?? []).map((p) => p.Prefix).sort(), [
      'jobs/j1/checkpoints/step-12/',
      'jobs/j1/checkpoints/step-4/',
    ]);
    const got = await client.send(
      new GetObjectCommand({ Bucket: 'ckpt', Key: 'jobs/j1/checkpoints/step-4/state.json' }),
    );
    assert.equal(await got.Body?.transformToString(), '{"step":4}');
  });

  test('a multipart upload of a streamed body comes back byte for byte', async () => {
    const client = s3();
    await client.send(new CreateBucketCommand({ Bucket: 'big' }));
    const data = randomBytes(11 * 1024 * 1024 + 17);
    let parts = 0;
    const upload = new Upload({
      client,
      params: { Bucket: 'big', Key: 'model.bin', Body: Readable.from([data]) },
      partSize: 5 * 1024 * 1024,
    });
    upload.on('httpUploadProgress', () => parts++);
    await upload.done();
    assert.ok(parts >= 3, `expected a multipart upload, saw ${parts} progress events`);
    const got = await client.send(new GetObjectCommand({ Bucket: 'big', Key: 'model.bin' }));
    const body = Buffer.from(await got.Body!.transformToByteArray());
    assert.equal(body.length, data.length);
    assert.ok(body.equals(data));
  });

  test('a streamed PutObject (aws-chunked with a trailing checksum) stores the payload, not the encoding', async () => {
    const client = s3();
    const text = 'step 7 weights\n'.repeat(5000);
    await client.send(
      new PutObjectCommand({
        Bucket: 'big',
        Key: 'streamed.txt',
        Body: Readable.from([Buffer.from(text)]),
        ContentLength: Buffer.byteLength(text),
      }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: 'big', Key: 'streamed.txt' }));
    assert.equal(await got.Body?.transformToString(), text);
  });

  test('objects persist in the data directory across a restart', async () => {
    await endpoint.stop();
    endpoint = await startLocalEndpoint({ port: 0, dataDir });
    const got = await s3().send(
      new GetObjectCommand({ Bucket: 'ckpt', Key: 'jobs/j1/checkpoints/step-4/state.json' }),
    );
    assert.equal(await got.Body?.transformToString(), '{"step":4}');
  });
});
