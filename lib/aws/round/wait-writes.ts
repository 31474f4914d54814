/**
 * Which waiting jobs' "why it waits" fields a round rewrites (pure). Positions shift for the whole queue whenever the
 * head starts, so writing every change would rewrite 25,000 items a round: only real changes are written — a new
 * reason, a moved position near the front (further back, a move of more than a tenth), an estimate off by more than a
 * minute or a tenth of the remaining wait — front of the queue first, at most `limit` per round (the exact front fits in one round); the rest follow in
 * later rounds.
 */
import type { WaitInfo } from '../../core/framework/wait-info.ts';
import type { ItemChanges } from '../dynamo/expressions.ts';
import type { JobItem } from '../items/job-item.ts';

export const WAIT_WRITE_LIMIT = 100;
/** Positions up to here are kept exact. */
const EXACT_POSITIONS = 100;

export interface WaitWrite {
  readonly jobId: string;
  readonly changes: ItemChanges;
  readonly queuePosition: number;
}

/** What the wait-info decision reads of a job. */
type WaitingView = Pick<JobItem, 'jobId' | 'status' | 'waitReason' | 'queuePosition' | 'estimatedStart'>;

export const isWaitingItem = (item: WaitingView): boolean =>
  item.status === 'queued' || item.status === 'suspended';

export const waitWrites = (
  items: readonly WaitingView[],
  waiting: ReadonlyMap<string, WaitInfo>,
  nowSeconds: number,
  limit = WAIT_WRITE_LIMIT,
): WaitWrite[] => {
  const writes: WaitWrite[] = [];
  for (const item of items) {
    if (!isWaitingItem(item)) continue;
    const info = waiting.get(item.jobId);
    if (!info || !changed(item, info, nowSeconds)) continue;
    writes.push({
      jobId: item.jobId,
      queuePosition: info.queuePosition,
      changes: {
        set: {
          waitReason: info.waitReason,
          queuePosition: info.queuePosition,
          ...(info.estimatedStart !== undefined ? { estimatedStart: Math.round(info.estimatedStart) } : {}),
        },
        ...(info.estimatedStart === undefined && item.estimatedStart !== undefined
          ? { remove: ['estimatedStart'] }
          : {}),
      },
    });
  }
  return writes.sort((a, b) => a.queuePosition - b.queuePosition).slice(0, limit);
};

const changed = (item: WaitingView, info: WaitInfo, now: number): boolean => {
  if (item.waitReason !== info.waitReason) return true;
  const old = item.queuePosition;
  if (old === undefined) return true;
  if (
    old !== info.queuePosition &&
    (info.queuePosition <= EXACT_POSITIONS || Math.abs(old - info.queuePosition) > 0.1 * old)
  )
    return true;
  const before = item.estimatedStart;
  const after = info.estimatedStart;
  if ((before === undefined) !== (after === undefined)) return true;
  if (before === undefined || after === undefined) return false;
  return Math.abs(before - after) > Math.max(60, 0.1 * Math.max(0, after - now));
};
