/**
 * The round's queue view persisted in the SchedulerState table, in segments, so a cold Lambda reads a few thousand
 * small items and the changes since, not the whole queue, and a round rewrites only the segments whose jobs changed:
 *
 * - segment items `queue-snapshot#<S>#<i>` (S segments, round/queue-segments.ts): the JSON of the jobs of segment
 *   i, their count and SHA-256, and a key of their content that a writer compares to skip unchanged segments;
 * - a header `queue-snapshot`: S, the watermark (the view is complete up to it), when it was last read in full, and
 *   the id of the persist that wrote it.
 *
 * Every segment and header write is fenced by the round lease (writeFenced), and the header is written after its
 * segments, forward in time only and only by a writer that knows what the table holds (the persist id it last wrote
 * or read): so every segment is at least as new as the header's watermark. A segment newer than the header (a
 * persist that stopped between the two) is harmless: the view orders jobs by revision. A reader verifies every
 * segment (present, checksum, count, every job in its segment); one that does not check out makes the snapshot
 * invalid and the round reads the queue in full.
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
} from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { Expressions } from '../dynamo/expressions.ts';
import type { LabelledWrite } from '../dynamo/fenced-writes.ts';
import { type QueuedJob, type QueueSnapshot, queuedJobSchema } from '../items/queued-job.ts';
import { bodyChecksum, type SegmentContent, segmentOf } from '../round/queue-segments.ts';

type Client = Pick<DynamoDBDocumentClient, 'send'>;

export const SNAPSHOT_KEY = 'queue-snapshot';

const headerSchema = z.object({
  key: z.literal(SNAPSHOT_KEY),
  segments: z.int().positive(),
  /**
   * Epoch seconds (the view's in-process clock is ms: converted here). A header from before times were seconds
   * (`watermarkMs`) or before segments (`chunks`) does not parse, so the round reads the queue in full once.
   */
  watermark: z.number(),
  fullReadAt: z.number(),
  persistId: z.string(),
});
export type SnapshotHeader = z.infer<typeof headerSchema>;

/** A header as the queue view speaks it (its clock is in-process ms). */
export interface SnapshotMarks {
  readonly segments: number;
  readonly watermarkMs: number;
  readonly fullReadAtMs: number;
  readonly persistId: string;
}

const segmentSchema = z.object({
  key: z.string(),
  body: z.string(),
  count: z.int().nonnegative(),
  sha256: z.string(),
  contentKey: z.string(),
});

export const segmentKey = (segments: number, index: number): string => `${SNAPSHOT_KEY}#${segments}#${index}`;

/** What a writer needs to know of the persisted segments to rewrite only what changed. */
export interface PersistedSegments {
  readonly segments: number;
  /** The persist that wrote the header (undefined: no header in the segmented format). */
  persistId: string | undefined;
  /** Content key per segment index, as the table holds it (absent: the item is missing). */
  readonly contentKeys: Map<number, string>;
}

/** A loaded snapshot and what it says about the table. */
export type LoadedSnapshot = QueueSnapshot & { readonly persisted: PersistedSegments };

const BATCH_GET_KEYS = 100;
const BATCH_GET_CONCURRENCY = 4;
const BATCH_WRITE_ITEMS = 25;

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
  async load(): Promise<LoadedSnapshot | { invalid: string }> {
    const header = await this.loadHeader();
    if (!header) return { invalid: 'no snapshot' };
    const items = await this.getSegments(header.segments);
    if ('invalid' in items) return items;
    const jobs: QueuedJob[] = [];
    const contentKeys = new Map<number, string>();
    for (let i = 0; i < header.segments; i++) {
      const parsed = segmentSchema.safeParse(items.get(segmentKey(header.segments, i)));
      if (!parsed.success) return { invalid: `segment ${i} of ${header.segments} is missing or malformed` };
      const segment = parsed.data;
      if (bodyChecksum(segment.body) !== segment.sha256)
        return { invalid: `segment ${i}: checksum does not match` };
      const raws = JSON.parse(segment.body) as unknown[];
      if (!Array.isArray(raws) || raws.length !== segment.count)
        return { invalid: `segment ${i}: ${raws.length} jobs where it says ${segment.count}` };
      for (const raw of raws) {
        const job = queuedJobSchema.safeParse(raw);
        if (!job.success) return { invalid: `segment ${i}: a job is malformed` };
        if (segmentOf(job.data.jobId, header.segments) !== i)
          return { invalid: `segment ${i}: job ${job.data.jobId} belongs to another segment` };
        jobs.push(job.data);
      }
      contentKeys.set(i, segment.contentKey);
    }
    return {
      watermarkMs: header.watermark * 1000,
      fullReadAtMs: header.fullReadAt * 1000,
      jobs,
      persisted: { segments: header.segments, persistId: header.persistId, contentKeys },
    };
  }

  /**
   * What the table holds for a writer out of step: the header's persist id and count of segments, and the content
   * key of each segment of `segments` (none when the header names another count).
   */
  async loadPersisted(
    segments: number,
  ): Promise<{ persisted: PersistedSegments; headerSegments: number | undefined }> {
    const header = await this.loadHeader();
    const contentKeys = new Map<number, string>();
    // Segments of another count are not reused: a writer re-cutting the queue writes them all. A segment whose body
    // does not match its checksum counts as missing, so it is rewritten. (Reading whole items costs the same read
    // units as reading their keys only.)
    if (header?.segments === segments) {
      const items = await this.getSegments(segments);
      if (!('invalid' in items))
        for (let i = 0; i < segments; i++) {
          const segment = segmentSchema.safeParse(items.get(segmentKey(segments, i)));
          if (segment.success && bodyChecksum(segment.data.body) === segment.data.sha256)
            contentKeys.set(i, segment.data.contentKey);
        }
    }
    return {
      persisted: { segments, persistId: header?.persistId, contentKeys },
      headerSegments: header?.segments,
    };
  }

  /** The write of one segment, for the caller to fence. */
  segmentWrite(segments: number, index: number, content: SegmentContent): LabelledWrite {
    return {
      label: `queue segment ${index}/${segments}`,
      item: {
        Put: {
          TableName: this.tableName,
          Item: { key: segmentKey(segments, index), ...content },
        },
      },
    };
  }

  /**
   * The header write, for the caller to fence: only if the header is still the one `expectedPersistId` names (else
   * another writer changed segments this one does not know of) and never back in time.
   */
  headerWrite(marks: SnapshotMarks, expectedPersistId: string | undefined): LabelledWrite {
    const header: Omit<SnapshotHeader, 'key'> = {
      segments: marks.segments,
      watermark: marks.watermarkMs / 1000,
      fullReadAt: marks.fullReadAtMs / 1000,
      persistId: marks.persistId,
    };
    const x = new Expressions();
    const persistId = x.name('persistId');
    const watermark = x.name('watermark');
    const same =
      expectedPersistId === undefined
        ? `attribute_not_exists(${persistId})`
        : `${persistId} = ${x.value(expectedPersistId)}`;
    return {
      label: 'queue snapshot',
      item: {
        Update: {
          TableName: this.tableName,
          Key: { key: SNAPSHOT_KEY },
          // `id`, `chunks`, `count`, `sha256`, `…Ms`: a header of an earlier format, replaced.
          UpdateExpression: x.update({
            set: header,
            remove: ['id', 'chunks', 'count', 'sha256', 'watermarkMs', 'fullReadAtMs'],
          }),
          ConditionExpression: `${same} AND (attribute_not_exists(${watermark}) OR ${watermark} <= ${x.value(header.watermark)})`,
          ...x.attributes(),
        },
      },
    };
  }

  /** Deletes the segments of a count no header names any more (best effort: leftovers are only unused items). */
  async removeSegments(segments: number): Promise<void> {
    for (let i = 0; i < segments; i += BATCH_WRITE_ITEMS) {
      const keys = Array.from({ length: Math.min(BATCH_WRITE_ITEMS, segments - i) }, (_, j) => ({
        DeleteRequest: { Key: { key: segmentKey(segments, i + j) } },
      }));
      await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: keys } }));
    }
  }

  /** Every segment item of a count, by key (consistent reads; unprocessed keys retried with backoff). */
  private async getSegments(
    segments: number,
  ): Promise<Map<string, Record<string, unknown>> | { invalid: string }> {
    const keys = Array.from({ length: segments }, (_, i) => ({ key: segmentKey(segments, i) }));
    const batches: Record<string, unknown>[][] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_KEYS) batches.push(keys.slice(i, i + BATCH_GET_KEYS));
    const found = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < batches.length; i += BATCH_GET_CONCURRENCY) {
      const results = await Promise.all(
        batches.slice(i, i + BATCH_GET_CONCURRENCY).map((batch) => this.batchGet(batch)),
      );
      for (const items of results) {
        if (!items) return { invalid: 'segments kept coming back unprocessed' };
        for (const item of items) found.set(String(item.key), item);
      }
    }
    return found;
  }

  private async batchGet(keys: Record<string, unknown>[]): Promise<Record<string, unknown>[] | undefined> {
    const found: Record<string, unknown>[] = [];
    let pending: Record<string, unknown>[] | undefined = keys;
    for (let attempt = 0; pending && pending.length > 0; attempt++) {
      if (attempt > 8) return undefined;
      if (attempt > 0)
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt * (0.5 + Math.random())));
      const output: BatchGetCommandOutput = await this.client.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: true } },
        }),
      );
      found.push(...((output.Responses?.[this.tableName] ?? []) as Record<string, unknown>[]));
      pending = output.UnprocessedKeys?.[this.tableName]?.Keys;
    }
    return found;
  }
}
