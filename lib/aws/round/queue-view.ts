/**
 * The round's view of the queue (waiting jobs), kept between rounds so a round reads only what changed. Jobs holding
 * GPUs are not kept here: they are bounded by the cluster and the round reads them fresh every time.
 *
 * - **Delta** (every round): the jobs written since the previous read, from the change index (`changedAt`, the wall
 *   clock of each write), starting `overlapMs` before the previous read began, so index lag and clock skew between
 *   writers do not hide a write. Each job carries a revision that grows with every write: an older view never
 *   replaces a newer one. The index holds only each job's revision and status: a newer waiting job's body is read
 *   from the table (consistently), a job that left the queue is dropped without one.
 * - **Snapshot** (cold start): the view as a round last persisted it (queue-snapshot-repository.ts), then a delta.
 * - **Full read** (no usable snapshot, a view older than `maxDeltaAgeMs`, or every `fullReadEveryMs` as a safety net):
 *   every queued and suspended job from the status index.
 *
 * The view is advisory: every round write is conditional on the job's status and generation, and the round reads a
 * job's full item before changing it, so a stale entry costs a conflict, never a wrong write.
 */

import type { JobItem } from '../items/job-item.ts';
import {
  isWaiting,
  QUEUED_JOB_ATTRIBUTES,
  type QueuedJob,
  type QueueSnapshot,
  queuedJobSchema,
  toQueuedJob,
} from '../items/queued-job.ts';
import type { CorruptItemError } from '../repositories/errors.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';
import { parseItem } from '../repositories/parse-item.ts';
import { FullQueueRead, type FullReadSource } from './full-queue-read.ts';

export interface QueueViewSources {
  readonly jobs: Pick<JobsRepository, 'listChangedSince' | 'getRawMany'> & FullReadSource;
  /** The persisted snapshot, or why there is none usable. */
  readonly loadSnapshot: () => Promise<QueueSnapshot | { invalid: string }>;
}

export interface QueueViewOptions {
  readonly overlapMs: number;
  readonly maxDeltaAgeMs: number;
  readonly fullReadEveryMs: number;
  /** Parallel lanes per status of a full read (full-queue-read.ts). */
  readonly fullReadLanes?: number;
}

export const QUEUE_VIEW_DEFAULTS: QueueViewOptions = {
  overlapMs: 30_000,
  maxDeltaAgeMs: 6 * 3600_000,
  fullReadEveryMs: 3600_000,
};

export interface RefreshResult {
  readonly how: 'delta' | 'snapshot' | 'full';
  /**
   * False while a first full read is still under way (it goes on in the next round): the view is empty and the round
   * must not act on the queue — not start, rank or size the fleet for waiting jobs it has not all seen.
   */
  readonly complete: boolean;
  /** Items read from DynamoDB (change-index entries, or the whole queue on a full read). */
  readonly read: number;
  /** Bodies of changed waiting jobs read from the table. */
  readonly fetched: number;
  readonly corrupt: readonly CorruptItemError[];
  /** Why a snapshot could not be used, when it could not. */
  readonly snapshotIssue?: string;
}

const parseQueued = (raw: Record<string, unknown>): QueuedJob =>
  parseItem(queuedJobSchema, raw, `job ${String(raw.jobId)}`);

export class QueueView {
  private readonly jobs = new Map<string, QueuedJob>();
  /**
   * Revisions of jobs seen leaving the queue (started or ended), so an older waiting view read from the lagging index
   * cannot bring them back; kept for two overlaps, longer than any such view can surface.
   */
  private readonly gone = new Map<string, { rev: number; atMs: number }>();
  private watermarkMs: number | undefined;
  private fullReadAtMs = 0;
  /** Jobs whose view changed since `takeTouched` (all: the view was replaced), for the snapshot's segments. */
  private touched = new Set<string>();
  private touchedAll = true;
  /** A full read spread over rounds: where it is, and what it found so far. */
  private fullRead: FullQueueRead | undefined;

  constructor(
    private readonly sources: QueueViewSources,
    private readonly wallClock: () => number = Date.now,
    private readonly options: QueueViewOptions = QUEUE_VIEW_DEFAULTS,
  ) {}

  /** The waiting jobs, oldest submission first. */
  waiting(): QueuedJob[] {
    return [...this.jobs.values()].sort(
      (a, b) => a.submittedAt - b.submittedAt || (a.jobId < b.jobId ? -1 : 1),
    );
  }

  /** The waiting jobs in no order (cheaper than `waiting` when the order does not matter). */
  all(): IterableIterator<QueuedJob> {
    return this.jobs.values();
  }

  /** The jobs whose view changed since the previous call, or 'all' when the view was replaced or forgotten. */
  takeTouched(): ReadonlySet<string> | 'all' {
    const touched = this.touchedAll ? 'all' : this.touched;
    this.touched = new Set();
    this.touchedAll = false;
    return touched;
  }

  get(jobId: string): QueuedJob | undefined {
    return this.jobs.get(jobId);
  }

  get size(): number {
    return this.jobs.size;
  }

  /** Rounds that used the view: a round that failed invalidates it only if no later round has taken it up since. */
  private uses = 0;

  /** Marks the start of a round using the view; pass the result to `invalidate` if the round fails. */
  use(): number {
    return ++this.uses;
  }

  /**
   * Forget everything: the next refresh starts from the snapshot or a full read (after a round failed midway). With
   * `use`, only if that round is the view's latest (a timed-out round that fails late leaves its successor alone).
   */
  invalidate(use?: number): void {
    if (use !== undefined && use !== this.uses) return;
    this.touchedAll = true;
    this.jobs.clear();
    this.gone.clear();
    this.watermarkMs = undefined;
    this.fullRead = undefined;
  }

  /** Up to when the view is complete, and when it was last read in full (undefined: no view yet). */
  marks(): { watermarkMs: number; fullReadAtMs: number } | undefined {
    return this.watermarkMs === undefined
      ? undefined
      : { watermarkMs: this.watermarkMs, fullReadAtMs: this.fullReadAtMs };
  }

  snapshot(): QueueSnapshot | undefined {
    if (this.watermarkMs === undefined) return undefined;
    return { watermarkMs: this.watermarkMs, fullReadAtMs: this.fullReadAtMs, jobs: this.waiting() };
  }

  /**
   * Takes a view of one job if it is newer than the one held: waiting jobs are kept, others dropped. Returns
   * whether the view changed. A job without a revision (written before revisions existed) counts as revision 0.
   */
  apply(job: JobItem | QueuedJob): boolean {
    const rev = job.rev ?? 0;
    const held = this.jobs.get(job.jobId);
    const known = held ? (held.rev ?? 0) : this.gone.get(job.jobId)?.rev;
    if (known !== undefined && rev < known) return false;
    if (isWaiting(job)) {
      this.gone.delete(job.jobId);
      this.jobs.set(job.jobId, toQueuedJob(job));
      this.touched.add(job.jobId);
      return true;
    }
    return this.leave(job.jobId, rev);
  }

  /** The job left the queue at revision `rev` (started or ended); returns whether the view held it. */
  private leave(jobId: string, rev: number): boolean {
    const held = this.jobs.delete(jobId);
    if (held) this.touched.add(jobId);
    this.gone.set(jobId, { rev, atMs: this.wallClock() });
    return held;
  }

  /**
   * Brings the view up to date. A full read that would run past `deadlineMs` (wall clock) stops there and goes on in
   * the next refresh; meanwhile an existing view keeps serving (with its deltas), and without one the result says
   * the view is not complete.
   */
  async refresh(deadlineMs = Number.POSITIVE_INFINITY): Promise<RefreshResult> {
    const now = this.wallClock();
    let how: RefreshResult['how'] = 'delta';
    let snapshotIssue: string | undefined;
    const corrupt: CorruptItemError[] = [];
    if (this.watermarkMs === undefined && !this.fullRead) {
      const snapshot = await this.sources.loadSnapshot();
      if ('invalid' in snapshot) snapshotIssue = snapshot.invalid;
      else if (now - snapshot.watermarkMs > this.options.maxDeltaAgeMs)
        snapshotIssue = `snapshot is ${Math.round((now - snapshot.watermarkMs) / 1000)} s old`;
      else {
        this.replace(snapshot.jobs, snapshot.watermarkMs, snapshot.fullReadAtMs, true);
        how = 'snapshot';
      }
    }
    const stale =
      this.watermarkMs === undefined ||
      now - this.watermarkMs > this.options.maxDeltaAgeMs ||
      now - this.fullReadAtMs > this.options.fullReadEveryMs;
    let read = 0;
    if (stale || this.fullRead) {
      this.fullRead ??= new FullQueueRead(now, this.sources.jobs, parseQueued, this.options.fullReadLanes);
      read = await this.continueFullRead(deadlineMs, corrupt);
      if (this.fullRead === undefined) how = 'full';
      else if (this.watermarkMs === undefined || now - this.watermarkMs > this.options.maxDeltaAgeMs)
        return {
          how: 'full',
          complete: false,
          read,
          fetched: 0,
          corrupt,
          ...(snapshotIssue ? { snapshotIssue } : {}),
        };
    }
    const since = this.watermarkMs! - this.options.overlapMs;
    const changes = await this.sources.jobs.listChangedSince(since);
    read += changes.length;
    const fetched = await this.applyChanges(changes, corrupt);
    this.watermarkMs = Math.max(this.watermarkMs!, now);
    for (const [jobId, { atMs }] of this.gone)
      if (now - atMs > 2 * this.options.overlapMs) this.gone.delete(jobId);
    return { how, complete: true, read, fetched, corrupt, ...(snapshotIssue ? { snapshotIssue } : {}) };
  }

  /**
   * Applies change-index entries: newer waiting jobs from their bodies (read consistently, so never older than the
   * entry), jobs that left the queue from the entry alone. Returns how many bodies were read.
   */
  private async applyChanges(
    changes: readonly Pick<JobItem, 'jobId' | 'rev' | 'status'>[],
    corrupt: CorruptItemError[],
  ): Promise<number> {
    const wanted: string[] = [];
    for (const change of changes) {
      if (!this.isNewer(change)) continue;
      if (isWaiting(change)) wanted.push(change.jobId);
      else this.leave(change.jobId, change.rev ?? 0);
    }
    const bodies = wanted.length > 0 ? await this.sources.jobs.getRawMany(wanted, QUEUED_JOB_ATTRIBUTES) : [];
    for (const raw of bodies) {
      if (!this.isNewer(raw)) continue;
      try {
        this.apply(parseQueued(raw));
      } catch (error) {
        corrupt.push(error as CorruptItemError);
      }
    }
    return bodies.length;
  }

  /** Reads the queue in full until done or past the deadline; once done, the view is what it found. */
  private async continueFullRead(deadlineMs: number, corrupt: CorruptItemError[]): Promise<number> {
    const progress = this.fullRead!;
    // At least one page per call, so a full read always moves on.
    const read = await progress.continue(() => this.wallClock() > deadlineMs, corrupt);
    if (!progress.done) return read;
    // Complete as of when it began: the delta that follows reads every change since (with the overlap).
    this.replace(progress.jobs(), progress.startedAtMs, progress.startedAtMs);
    this.fullRead = undefined;
    return read;
  }

  /** Cheap check on a raw item before parsing it: a newer revision of a job that is or was waiting, or a new job. */
  private isNewer(raw: {
    readonly jobId?: unknown;
    readonly rev?: unknown;
    readonly status?: unknown;
  }): boolean {
    const jobId = String(raw.jobId);
    const rev = typeof raw.rev === 'number' ? raw.rev : 0;
    const held = this.jobs.get(jobId);
    if (held) return rev > (held.rev ?? 0);
    const gone = this.gone.get(jobId);
    if (gone !== undefined) return rev > gone.rev;
    return raw.status === 'queued' || raw.status === 'suspended';
  }

  /** The view becomes `jobs`; from a snapshot, nothing counts as touched (the view is what the snapshot holds). */
  private replace(
    jobs: readonly QueuedJob[],
    watermarkMs: number,
    fullReadAtMs: number,
    fromSnapshot = false,
  ): void {
    this.touchedAll = !fromSnapshot;
    this.touched = new Set();
    this.jobs.clear();
    this.gone.clear();
    for (const job of jobs) this.jobs.set(job.jobId, job);
    this.watermarkMs = watermarkMs;
    this.fullReadAtMs = fullReadAtMs;
  }
}
