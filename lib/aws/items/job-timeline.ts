/**
 * A job's history as the user sees it: submitted, started on which hosts, preempted, migrated, rescaled,
 * requeued, finished. Each entry is added by the same conditional write that makes the transition (expected status
 * and generation), so two writers can never both append; the list keeps the newest entries only.
 */
import { z } from 'zod';
import { type Allocation, allocationGpuCount } from '../../core/model/plan.ts';

export const TIMELINE_LIMIT = 50;

export const timelineEventSchema = z.object({
  /** Epoch seconds. */
  at: z.number(),
  kind: z.enum([
    'submitted',
    'started',
    'migrated',
    'rescaled',
    'requeued',
    'cancelRequested',
    'finished',
    'failed',
    'cancelled',
  ]),
  detail: z.string().optional(),
  hosts: z.array(z.string()).optional(),
});

export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/**
 * The timeline with `event` appended (the oldest entries dropped past the limit), never earlier than the last entry:
 * a round stamps its events with the time it started, and a job submitted while that round ran is read later, so
 * its "started" would otherwise precede its "submitted".
 */
export const appendTimeline = (
  timeline: readonly TimelineEvent[] | undefined,
  event: TimelineEvent,
): TimelineEvent[] => {
  const last = timeline?.at(-1);
  const at = last === undefined ? event.at : Math.max(event.at, last.at);
  return [...(timeline ?? []), { ...event, at }].slice(-TIMELINE_LIMIT);
};

/** Hosts of an allocation, with GPU counts, for a timeline entry. */
export const placementOf = (allocation: Allocation): Pick<TimelineEvent, 'detail' | 'hosts'> => ({
  detail: `${allocationGpuCount(allocation)} × ${allocation.gpuType}`,
  hosts: allocation.slices.map((s) => s.hostId),
});
