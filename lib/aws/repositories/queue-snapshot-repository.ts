/**
 * The round's queue view persisted in the SchedulerState table, so a cold Lambda reads a few items and the changes
 * since, not the whole queue: chunks of JSON under DynamoDB's 400 KB item limit (`queue-snapshot#<id>#<i>`), then a
 * header (`queue-snapshot`) naming them with their count and SHA-256. Chunks are new keys per snapshot, and the
 * header is written last, fenced by the round lease and only forward in time, so a reader sees a whole snapshot or
 * the previous one; one that does not check out is reported invalid and the round reads the queue in full.
 */
import { createHash } from 'node:crypto';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { Expressions } from '../dynamo/expressions.ts';
import type { LabelledWrite } from '../dynamo/fenced-writes.ts';
import { type QueuedJob, type QueueSnapshot, queuedJobSchema } from '../items/queued-job.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export const SNAPSHOT_KEY = 'queue-snapshot';
/** Bytes of JSON per chunk item: room under the 400 KB item limit for the key and attribute names. */
export const SNAPSHOT_CHUNK_BYTES = 350_000;

const headerSchema = z.object({
  key: z.literal(SNAPSHOT_KEY),
  id: z.string(),
  /**
   * Epoch seconds (the view's in-process clock is ms: converted here). A header from before times were seconds has
   * `watermarkMs` instead: it does not parse, so the round reads the queue in full once and writes a new one.
   */
  watermark: z.number(),
  fullReadAt: z.number(),
  chunks: z.int().nonnegative(),
  count: z.int().nonnegative(),
  sha256: z.string(),
});
export type SnapshotHeader = z.infer<typeof headerSchema>;

const chunkKey = (id: string, index: number) => `${SNAPSHOT_KEY}#${id}#${index}`;

/** The jobs as JSON arrays of at most `maxBytes` each (one job per chunk at least). */
export const chunkJobs = (jobs: readonly QueuedJob[], maxBytes = SNAPSHOT_CHUNK_BYTES): string[] => {
  const chunks: string[] = [];
  let current: string[] = [];
  let bytes = 2;
  for (const job of jobs) {
    const text = JSON.stringify(job);
    const size = Buffer.byteLength(text, 'utf8') + 1;
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(`[${current.join(',')}]`);
      current = [];
      bytes = 2;
    }
    current.push(text);
    bytes += size;
  }
  if (current.length > 0 || chunks.length === 0) chunks.push(`[${current.join(',')}]`);
  return chunks;
};

const digest = (chunks: readonly string[]) => {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
};

export class QueueSnapshotRepository {
  constructor(
    private readonly client: Client,
    readonly tableName: string,
  ) {}

  async loadHeader(): Promise<SnapshotHeader | undefined> {
    const output = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { key: SNAPSHOT_KEY }, ConsistentRead: true }),
    );
    const parsed = headerSchema.safeParse(output.Item);
    return parsed.success ? parsed.data : undefined;
  }

  /** The persisted snapshot, or why it cannot be used (missing, torn, corrupt). */
  async load(): Promise<QueueSnapshot | { invalid: string }> {
    const header = await this.loadHeader();
    if (!header) return { invalid: 'no snapshot' };
    const keys = Array.from({ length: header.chunks }, (_, i) => ({ key: chunkKey(header.id, i) }));
    const bodies = new Map<string, string>();
    for (let i = 0; i < keys.length; i += 100) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(i, i + 100);
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 8) return { invalid: 'chunks kept coming back unprocessed' };
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const output: BatchGetCommandOutput = await this.client.send(
          new BatchGetCommand({
            RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        for (const item of output.Responses?.[this.tableName] ?? [])
          if (typeof item.key === 'string' && typeof item.body === 'string') bodies.set(item.key, item.body);
        pending = output.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    const chunks: string[] = [];
    for (const { key } of keys) {
      const body = bodies.get(key);
      if (body === undefined) return { invalid: `chunk ${key} is missing` };
      chunks.push(body);
    }
    if (digest(chunks) !== header.sha256) return { invalid: 'checksum does not match' };
    const jobs: QueuedJob[] = [];
    for (const chunk of chunks) {
      for (const raw of JSON.parse(chunk) as unknown[]) {
        const parsed = queuedJobSchema.safeParse(raw);
        if (!parsed.success) return { invalid: 'a job in the snapshot is malformed' };
        jobs.push(parsed.data);
      }
    }
    if (jobs.length !== header.count)
      return { invalid: `${jobs.length} jobs where the header says ${header.count}` };
    return { watermarkMs: header.watermark * 1000, fullReadAtMs: header.fullReadAt * 1000, jobs };
  }

  /**
   * Writes the chunks of a snapshot (new keys, so nothing a reader uses changes) and returns the header write for
   * the caller to fence; `removeChunks` deletes the previous snapshot's chunks once the new header is in.
   */
  async writeChunks(id: string, snapshot: QueueSnapshot): Promise<{ header: LabelledWrite; chunks: number }> {
    const chunks = chunkJobs(snapshot.jobs);
    const CONCURRENCY = 4;
    for (let i = 0; i < chunks.length; i += CONCURRENCY)
      await Promise.all(
        chunks
          .slice(i, i + CONCURRENCY)
          .map((body, j) =>
            this.client.send(
              new PutCommand({ TableName: this.tableName, Item: { key: chunkKey(id, i + j), body } }),
            ),
          ),
      );
    const header: SnapshotHeader = {
      key: SNAPSHOT_KEY,
      id,
      watermark: snapshot.watermarkMs / 1000,
      fullReadAt: snapshot.fullReadAtMs / 1000,
      chunks: chunks.length,
      count: snapshot.jobs.length,
      sha256: digest(chunks),
    };
    const x = new Expressions();
    const { key: _key, ...fields } = header;
    return {
      chunks: chunks.length,
      header: {
        label: 'queue snapshot',
        item: {
          Update: {
            TableName: this.tableName,
            Key: { key: SNAPSHOT_KEY },
            UpdateExpression: x.update({ set: fields, remove: ['watermarkMs', 'fullReadAtMs'] }),
            // Never back in time: a slower writer of an older view does not replace a newer one.
            ConditionExpression: `attribute_not_exists(${x.name('watermark')}) OR ${x.name('watermark')} <= ${x.value(fields.watermark)}`,
            ...x.attributes(),
          },
        },
      },
    };
  }

  /** Deletes the chunks of a snapshot no header names any more (best effort: leftovers are only unused items). */
  async removeChunks(header: Pick<SnapshotHeader, 'id' | 'chunks'>): Promise<void> {
    for (let i = 0; i < header.chunks; i++)
      await this.client.send(
        new DeleteCommand({ TableName: this.tableName, Key: { key: chunkKey(header.id, i) } }),
      );
  }
}
