/**
 * How the queue snapshot is cut into segments (pure): a job belongs to segment `hash(jobId) mod S`, S a power of two
 * that follows the queue's length, so a segment holds a few jobs whatever the queue and a round rewrites only the
 * segments whose jobs changed (queue-snapshot-store.ts). Doubling S splits every segment in two, so resizing is
 * rare (amortised over the jobs that made the queue grow).
 */
import { createHash } from 'node:crypto';
import type { QueuedJob } from '../items/queued-job.ts';

/** Jobs per segment the count aims at: the queue is cut so segments hold 8 to 16 on average. */
export const JOBS_PER_SEGMENT = 16;
/** A segment is one DynamoDB item: its JSON stays under this (room under 400 KB for the key and checksums). */
export const SEGMENT_MAX_BYTES = 350_000;
export const MAX_SEGMENTS = 1 << 16;

/** FNV-1a (32 bits) of the job id: stable across processes and versions, spread well over the low bits. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

/** The segment of a job among `segments` (a power of two). */
export const segmentOf = (jobId: string, segments: number): number => fnv1a(jobId) & (segments - 1);

const nextPowerOfTwo = (n: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/**
 * Segments for a queue of `count` jobs: the current number while it keeps 2 to 16 jobs per segment on average
 * (so a queue that hovers around a boundary is not re-cut every round), else the power of two that gives 8 to 16;
 * never fewer than `minimum` (raised when a segment outgrew one item).
 */
export const segmentCountFor = (count: number, current?: number, minimum = 1): number => {
  const floor = Math.min(MAX_SEGMENTS, nextPowerOfTwo(minimum));
  if (current !== undefined && current >= floor) {
    const average = count / current;
    if (average <= JOBS_PER_SEGMENT && (average >= 2 || current === floor)) return current;
  }
  return Math.min(MAX_SEGMENTS, Math.max(floor, nextPowerOfTwo(count / JOBS_PER_SEGMENT)));
};

/**
 * Attributes left out of a segment's content key: what changes on every write (revision, change stamp) or with
 * every round's "why it waits" (wait-writes.ts). A segment whose jobs changed only there is not rewritten; its
 * stored revisions stay lower bounds, which is all the view needs (a newer change comes through the change index).
 */
const VOLATILE = new Set([
  'rev',
  'changedAt',
  'changeShard',
  'updatedAt',
  'waitReason',
  'queuePosition',
  'estimatedStart',
]);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted at every level: equal content, equal text, whatever order the keys came in. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
};

const stableFields = (job: QueuedJob): Record<string, unknown> =>
  Object.fromEntries(Object.entries(job).filter(([key]) => !VOLATILE.has(key)));

export interface SegmentContent {
  /** The segment's jobs as stored: a JSON array, by job id. */
  readonly body: string;
  readonly count: number;
  /** Checksum of `body`: a reader refuses a segment whose body does not match. */
  readonly sha256: string;
  /** Hash of the jobs without their volatile attributes: a writer rewrites a segment only when this changes. */
  readonly contentKey: string;
}

export const segmentContent = (jobs: readonly QueuedJob[]): SegmentContent => {
  const sorted = [...jobs].sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
  const body = JSON.stringify(sorted);
  const stable = canonical(sorted.map(stableFields));
  return { body, count: sorted.length, sha256: sha256(body), contentKey: sha256(stable).slice(0, 32) };
};

export const bodyChecksum = sha256;
