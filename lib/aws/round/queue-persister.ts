/**
 * Persists the round's queue view as segments (queue-segments.ts, queue-snapshot-repository.ts), rewriting only the
 * segments whose jobs changed since the previous persist, so a round's snapshot writes follow what changed in the
 * queue, not its length. Lives as long as the round handler, beside the QueueView it persists.
 *
 * It knows which content each segment item holds (what it wrote, or read when a cold start loaded the snapshot).
 * When it may not (first persist, another handler wrote since, the queue was re-cut into another number of
 * segments) it reads the segments back first (their content keys, checksums verified), then writes only those that differ; every write is fenced by
 * the round lease, the header last, conditional on the persist it knows of.
 */
import type { FencedWriteResult, LabelledWrite } from '../dynamo/fenced-writes.ts';
import { itemSize, writeUnits as unitsOf } from '../dynamo/item-size.ts';
import type { QueuedJob, QueueSnapshot } from '../items/queued-job.ts';
import {
  type PersistedSegments,
  type QueueSnapshotRepository,
  SNAPSHOT_KEY,
  segmentKey,
} from '../repositories/queue-snapshot-repository.ts';
import {
  SEGMENT_MAX_BYTES,
  type SegmentContent,
  segmentContent,
  segmentCountFor,
  segmentOf,
} from './queue-segments.ts';
import type { QueueView } from './queue-view.ts';

type Fenced = (writes: readonly LabelledWrite[]) => Promise<FencedWriteResult>;

export interface PersistResult {
  readonly written: boolean;
  readonly segments: number;
  /** Segment items written (the header not counted). */
  readonly segmentsWritten: number;
  /** Bytes of the items written (segments and header), as DynamoDB counts an item's size. */
  readonly bytes: number;
  /** Write request units, as a transactional write is billed: 2 per KB (rounded up) of each item. */
  readonly writeUnits: number;
  /** The segments' content keys were read first (this writer did not know what the table held). */
  readonly resynced: boolean;
  readonly why?: string;
}

/** A transactional write costs two write units per KB of the item. */
const transactionalUnits = (bytes: number) => 2 * unitsOf(bytes);

export class QueuePersister {
  private known: PersistedSegments | undefined;
  /** Jobs touched since the last complete persist (all: compare every segment). */
  private pending = new Set<string>();
  private pendingAll = true;
  /** Raised when a segment outgrew one item: the next persist re-cuts the queue into more segments. */
  private minimumSegments = 1;

  constructor(private readonly repository: QueueSnapshotRepository) {}

  /** The persisted snapshot for a cold QueueView; on success this persister knows what every segment holds. */
  async load(): Promise<QueueSnapshot | { invalid: string }> {
    const loaded = await this.repository.load();
    if ('invalid' in loaded) return loaded;
    this.known = { ...loaded.persisted, contentKeys: new Map(loaded.persisted.contentKeys) };
    this.pending.clear();
    this.pendingAll = false;
    return loaded;
  }

  /**
   * Writes the segments that changed, then the header; `persistId` names this persist (unique per round). After a
   * persist that did not complete this persister no longer trusts what it knows of the table and reads it again.
   */
  async persist(queue: QueueView, fenced: Fenced, persistId: string): Promise<PersistResult> {
    try {
      const result = await this.tryPersist(queue, fenced, persistId);
      if (!result.written) this.known = undefined;
      return result;
    } catch (error) {
      this.known = undefined;
      throw error;
    }
  }

  private async tryPersist(queue: QueueView, fenced: Fenced, persistId: string): Promise<PersistResult> {
    const touched = queue.takeTouched();
    if (touched === 'all') this.pendingAll = true;
    else for (const jobId of touched) this.pending.add(jobId);
    const marks = queue.marks();
    const segments = segmentCountFor(queue.size, this.known?.segments, this.minimumSegments);
    const result = { written: false, segments, segmentsWritten: 0, bytes: 0, writeUnits: 0, resynced: false };
    if (!marks) return { ...result, why: 'no view yet' };
    let replaced: number | undefined;
    if (!this.known || this.known.segments !== segments) {
      const table = await this.repository.loadPersisted(segments);
      replaced = table.headerSegments !== segments ? table.headerSegments : undefined;
      this.known = table.persisted;
      this.pendingAll = true;
      result.resynced = true;
    }
    const known = this.known;
    const changed = this.changedSegments(queue, segments, known);
    if ('oversized' in changed) {
      this.minimumSegments = segments * 2;
      return {
        ...result,
        why: `segment ${changed.oversized} outgrew one item: ${segments * 2} segments next`,
      };
    }
    const writes = changed.map(({ index, content }) =>
      this.repository.segmentWrite(segments, index, content),
    );
    const segmentResult = await fenced(writes);
    const done = new Set(segmentResult.written);
    for (const [i, { index, content }] of changed.entries())
      if (done.has(writes[i]!.label)) known.contentKeys.set(index, content.contentKey);
    result.segmentsWritten = done.size;
    for (const { index, content } of changed) {
      const bytes = itemSize({ key: segmentKey(segments, index), ...content });
      result.bytes += bytes;
      result.writeUnits += transactionalUnits(bytes);
    }
    if (done.size < writes.length) return { ...result, why: 'a segment was not written' };

    const header = this.repository.headerWrite({ segments, ...marks, persistId }, known.persistId);
    const headerResult = await fenced([header]);
    const headerBytes = itemSize({ key: SNAPSHOT_KEY, segments, ...marks, persistId });
    result.bytes += headerBytes;
    result.writeUnits += transactionalUnits(headerBytes);
    if (headerResult.written.length === 0) {
      // Another writer's header: read what the table holds before the next persist.
      return { ...result, why: 'the header changed since this handler last wrote or read it' };
    }
    known.persistId = persistId;
    this.pending.clear();
    this.pendingAll = false;
    if (replaced !== undefined) await this.repository.removeSegments(replaced).catch(() => undefined); // unused items at worst
    return { ...result, written: true };
  }

  /** Segments to look at (all, or those of touched jobs) whose content differs from what the table holds. */
  private changedSegments(
    queue: QueueView,
    segments: number,
    known: PersistedSegments,
  ): { index: number; content: SegmentContent }[] | { oversized: number } {
    const bySegment = new Map<number, QueuedJob[]>();
    if (this.pendingAll) for (let i = 0; i < segments; i++) bySegment.set(i, []);
    else for (const jobId of this.pending) bySegment.set(segmentOf(jobId, segments), []);
    for (const job of queue.all()) bySegment.get(segmentOf(job.jobId, segments))?.push(job);
    const changed: { index: number; content: SegmentContent }[] = [];
    for (const [index, jobs] of bySegment) {
      const content = segmentContent(jobs);
      if (Buffer.byteLength(content.body, 'utf8') > SEGMENT_MAX_BYTES) return { oversized: index };
      if (known.contentKeys.get(index) !== content.contentKey) changed.push({ index, content });
    }
    return changed.sort((a, b) => a.index - b.index);
  }
}
