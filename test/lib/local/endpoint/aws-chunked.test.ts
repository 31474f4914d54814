import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import {
  AwsChunkedDecoder,
  decodedHeaders,
  isAwsChunked,
} from '../../../../lib/local/endpoint/aws-chunked.ts';

const encode = (parts: string[], trailer = 'x-amz-checksum-crc32:AAAAAA==\r\n\r\n') =>
  parts.map((p) => `${Buffer.byteLength(p).toString(16)};chunk-signature=abc\r\n${p}\r\n`).join('') +
  `0;chunk-signature=abc\r\n${trailer}`;

const decode = async (encoded: string, pieceSize: number) => {
  const bytes = Buffer.from(encoded);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += pieceSize) pieces.push(bytes.subarray(i, i + pieceSize));
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(pieces).pipe(new AwsChunkedDecoder())) out.push(chunk as Buffer);
  return Buffer.concat(out).toString();
};

describe('aws-chunked decoding', () => {
  test('gives back the payload however the encoded bytes are split', async () => {
    const encoded = encode(['hello ', 'chunked\r\nworld', 'x'.repeat(300)]);
    for (const pieceSize of [1, 2, 3, 7, 64, 10_000]) {
      assert.equal(await decode(encoded, pieceSize), `hello chunked\r\nworld${'x'.repeat(300)}`);
    }
  });

  test('a body cut before the final chunk is an error', async () => {
    await assert.rejects(decode('5\r\nhel', 4), /ended before its final chunk/);
  });

  test('headers describe the decoded body', () => {
    const headers = {
      'content-encoding': 'aws-chunked,gzip',
      'content-length': '999',
      'x-amz-decoded-content-length': '12',
      'x-amz-trailer': 'x-amz-checksum-crc32',
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      host: 'h',
    };
    assert.ok(isAwsChunked(headers));
    assert.ok(!isAwsChunked({ 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }));
    assert.deepEqual(decodedHeaders(headers), {
      host: 'h',
      'content-encoding': 'gzip',
      'content-length': '12',
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    });
  });
});
