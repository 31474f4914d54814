/** Log chunks to S3: one PutObject per chunk, bounded in time so a hung request cannot stall shipping forever. */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { LOG_OBJECT_TAG } from '../../../lib/protocol/log-chunk.ts';
import type { LogSink } from './log-shipper.ts';

export class S3LogSink implements LogSink {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly timeoutSeconds = 30,
  ) {}

  async put(key: string, body: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: 'application/json',
        // The lifecycle rule's filter: logs expire after the stack's logRetentionDays.
        Tagging: `${LOG_OBJECT_TAG.key}=${LOG_OBJECT_TAG.value}`,
      }),
      { abortSignal: AbortSignal.timeout(this.timeoutSeconds * 1000) },
    );
  }
}
