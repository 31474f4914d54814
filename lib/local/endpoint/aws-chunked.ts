import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * S3's `aws-chunked` content encoding, which the AWS SDK uses for streamed uploads (each chunk
 * `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n`, a zero-size chunk, then trailing checksum
 * headers). s3rver does not decode it, so the endpoint does, and hands s3rver the plain body.
 */
export function isAwsChunked(headers: IncomingHttpHeaders): boolean {
  const encoding = String(headers['content-encoding'] ?? '');
  const sha = String(headers['x-amz-content-sha256'] ?? '');
  return encoding.split(',').some((e) => e.trim() === 'aws-chunked') || sha.startsWith('STREAMING-');
}

/** The request's headers as they are for the decoded body. */
export function decodedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const {
    'content-encoding': encoding,
    'x-amz-decoded-content-length': decodedLength,
    'x-amz-trailer': _trailer,
    'transfer-encoding': _transfer,
    'content-length': _encodedLength,
    ...rest
  } = headers;
  const remaining = String(encoding ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && e !== 'aws-chunked');
  return {
    ...rest,
    ...(remaining.length > 0 ? { 'content-encoding': remaining.join(',') } : {}),
    ...(decodedLength !== undefined
      ? { 'content-length': String(decodedLength) }
      : { 'transfer-encoding': 'chunked' }),
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
  };
}

/** Decodes an aws-chunked body into its payload; trailers (checksums) are dropped. */
export class AwsChunkedDecoder extends Transform {
  private buffered: Buffer = Buffer.alloc(0);
  /** Bytes of payload left in the current chunk, plus its closing CRLF. */
  private remaining = 0;
  private finished = false;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    try {
      this.drain();
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.finished ? null : new Error('aws-chunked body ended before its final chunk'));
  }

  private drain(): void {
    while (!this.finished && this.buffered.length > 0) {
      if (this.remaining > 0) {
        const payloadLeft = this.remaining - 2;
        if (payloadLeft > 0) {
          const take = Math.min(payloadLeft, this.buffered.length);
          this.push(this.buffered.subarray(0, take));
          this.buffered = this.buffered.subarray(take);
          this.remaining -= take;
          continue;
        }
        // Only the chunk's CRLF is left.
        const take = Math.min(this.remaining, this.buffered.length);
        this.buffered = this.buffered.subarray(take);
        this.remaining -= take;
        continue;
      }
      const lineEnd = this.buffered.indexOf('\r\n');
      if (lineEnd < 0) return;
      const line = this.buffered.subarray(0, lineEnd).toString('latin1');
      this.buffered = this.buffered.subarray(lineEnd + 2);
      const size = Number.parseInt(line.split(';')[0]!.trim(), 16);
      if (!Number.isFinite(size)) throw new Error(`aws-chunked: bad chunk header ${JSON.stringify(line)}`);
      if (size === 0) {
        // The trailers that follow carry checksums only; nothing of the payload is left.
        this.finished = true;
        return;
      }
      this.remaining = size + 2;
    }
  }
}
