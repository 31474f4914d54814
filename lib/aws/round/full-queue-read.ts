/**
 * A full read of the queue (every queued and suspended job, with the attributes the queue view keeps) from the status
 * index, in lanes read in parallel: each status's range of `submittedAt` cut into equal parts, one page of each lane
 * at a time. Resumable: a read that runs past its deadline goes on where it stopped (QueueView spreads it over rounds).
 *
 * Why lanes: one long query pages through its partition one page after another; lanes cut the wall time by their
 * number where the store serves them in parallel, and DynamoDB Local pays less CPU per page in a short key range than
 * deep in a long one (test/faults/full-read.ts: 25,000 queued jobs, 8 lanes 9 s and 2.6 CPU-s of DynamoDB Local
 * against 24-30 s and 6.5-10 CPU-s for one query, on a busy 2-core machine).
 */

import { QUEUED_JOB_ATTRIBUTES, type QueuedJob, WAITING_STATUSES } from '../items/queued-job.ts';
import type { CorruptItemError } from '../repositories/errors.ts';
import type { JobsRepository } from '../repositories/jobs-repository.ts';

export const FULL_READ_LANES = 8;

export type FullReadSource = Pick<JobsRepository, 'pageRawByStatus' | 'submittedRange'>;

interface Lane {
  readonly status: (typeof WAITING_STATUSES)[number];
  /** Inclusive bounds of submittedAt; neighbours share a bound, so a job exactly on it is read twice (kept once). */
  readonly from: number;
  readonly to: number;
  next?: Record<string, unknown>;
  done: boolean;
}

export class FullQueueRead {
  private lanes: Lane[] | undefined;
  private readonly found = new Map<string, QueuedJob>();

  constructor(
    readonly startedAtMs: number,
    private readonly source: FullReadSource,
    private readonly parse: (raw: Record<string, unknown>) => QueuedJob,
    private readonly lanesPerStatus = FULL_READ_LANES,
  ) {}

  get done(): boolean {
    return this.lanes?.every((lane) => lane.done) ?? false;
  }

  /** What the read found (complete once `done`). */
  jobs(): QueuedJob[] {
    return [...this.found.values()];
  }

  /** Reads until done or `pastDeadline()` (after one round of pages at least); returns the items read. */
  async continue(pastDeadline: () => boolean, corrupt: CorruptItemError[]): Promise<number> {
    this.lanes ??= await this.plan();
    let read = 0;
    let first = true;
    while (!this.done) {
      if (!first && pastDeadline()) return read;
      first = false;
      const open = this.lanes.filter((lane) => !lane.done);
      const pages = await Promise.all(
        open.map((lane) =>
          this.source.pageRawByStatus(lane.status, QUEUED_JOB_ATTRIBUTES, lane.next, {
            from: lane.from,
            to: lane.to,
          }),
        ),
      );
      for (const [i, page] of pages.entries()) {
        const lane = open[i]!;
        read += page.items.length;
        for (const raw of page.items) {
          try {
            const job = this.parse(raw);
            this.found.set(job.jobId, job);
          } catch (error) {
            corrupt.push(error as CorruptItemError);
          }
        }
        if (page.next) lane.next = page.next;
        else {
          lane.done = true;
          delete lane.next;
        }
      }
    }
    return read;
  }

  /** Lanes per waiting status, from the oldest and newest submission in it (none for an empty status). */
  private async plan(): Promise<Lane[]> {
    const lanes: Lane[] = [];
    for (const status of WAITING_STATUSES) {
      const range = await this.source.submittedRange(status);
      if (!range) continue;
      const count = range.last > range.first ? this.lanesPerStatus : 1;
      const step = (range.last - range.first) / count;
      for (let i = 0; i < count; i++)
        lanes.push({
          status,
          from: range.first + i * step,
          to: i === count - 1 ? range.last : range.first + (i + 1) * step,
          done: false,
        });
    }
    return lanes;
  }
}
