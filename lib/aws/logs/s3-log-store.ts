/**
 * Job logs on S3 (the chunks the host agents ship, lib/protocol/log-chunk.ts): ranks are the "folders" under the
 * job's log prefix, chunks of a rank list in name order, which is the order they were written.
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import {
  jobLogsPrefix,
  type LogChunk,
  logChunkKey,
  logChunkSchema,
  parseLogChunkKey,
  rankLogsPrefix,
} from '../../protocol/log-chunk.ts';
import type { LogChunkStore } from './log-store.ts';

export class S3LogStore implements LogChunkStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async listRanks(jobId: string): Promise<number[]> {
    const prefix = jobLogsPrefix(jobId);
    const ranks: number[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          Delimiter: '/',
          ...(token ? { ContinuationToken: token } : {}),
        }),
      );
      for (const common of page.CommonPrefixes ?? []) {
        const rank = /^(\d+)\/$/.exec((common.Prefix ?? '').slice(prefix.length));
        if (rank) ranks.push(Number(rank[1]));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return ranks.sort((a, b) => a - b);
  }

  async listChunks(jobId: string, rank: number, after: string | null, max: number): Promise<string[]> {
    // No MaxKeys: S3's default page (1,000 keys) is cut here instead. A truncated listing makes the local S3
    // (s3rver) build a DES continuation token, which Node's OpenSSL 3 refuses without its legacy provider (a 500).
    const page = await this.s3.send(
      new ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: rankLogsPrefix(jobId, rank),
        ...(after !== null ? { StartAfter: logChunkKey(jobId, rank, after) } : {}),
      }),
    );
    const names = (page.Contents ?? []).flatMap((object) => {
      const parsed = parseLogChunkKey(jobId, object.Key ?? '');
      return parsed && parsed.rank === rank ? [parsed.name] : [];
    });
    return names.slice(0, max);
  }

  async getChunk(jobId: string, rank: number, name: string): Promise<LogChunk | null> {
    let text: string;
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: logChunkKey(jobId, rank, name) }),
      );
      text = (await object.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return null;
      throw error;
    }
    try {
      const parsed = logChunkSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}
