/**
 * How good the rounds' estimated starts are: every round, each waiting job's estimate is recorded (job, round time,
 * estimate); when the job next starts (its first start, or a restart after a preemption), those estimates are
 * resolved against that start. Estimates of jobs that never start again are dropped.
 */
import type { RoundOutput } from '../core/framework/round.ts';
import { percentile } from './metrics.ts';

export interface WaitEstimateSample {
  readonly jobId: string;
  /** When the round made the estimate (s). */
  readonly at: number;
  readonly estimate: number;
  /** When the job actually started next. */
  readonly actual: number;
  /** When that wait began (arrival or preemption). */
  readonly waitingSince: number;
}

/** Collects estimates through the simulator's `onRound` hook. */
export class WaitEstimateRecorder {
  readonly samples: WaitEstimateSample[] = [];
  private readonly pending = new Map<
    string,
    { since: number; estimates: { at: number; estimate: number }[] }
  >();

  readonly onRound = (now: number, output: RoundOutput): void => {
    for (const jobId of output.plan.keys()) {
      const wait = this.pending.get(jobId);
      if (!wait) continue;
      for (const e of wait.estimates)
        this.samples.push({ jobId, ...e, actual: now, waitingSince: wait.since });
      this.pending.delete(jobId);
    }
    for (const [jobId, info] of output.waiting) {
      if (info.waitReason.startsWith('unschedulable')) continue;
      let wait = this.pending.get(jobId);
      if (!wait) {
        wait = { since: now, estimates: [] };
        this.pending.set(jobId, wait);
      }
      if (info.estimatedStart !== undefined) wait.estimates.push({ at: now, estimate: info.estimatedStart });
    }
  };
}

export interface WaitEstimateQuality {
  /** Waits (a job from arrival or preemption to its next start) with at least one estimate. */
  readonly waits: number;
  /** Estimates over all rounds of those jobs. */
  readonly samples: number;
  /** Median |estimate − actual start| over every round's estimate, seconds. */
  readonly medianAbsError: number;
  readonly p90AbsError: number;
  /** Median error of each wait's first estimate (made in the round it began). */
  readonly medianFirstAbsError: number;
  /** Median signed error (estimate − actual): negative = estimates too early. */
  readonly medianBias: number;
  /** Median length of those waits, for scale. */
  readonly medianWait: number;
  /** Share of estimates within 10 minutes or 20 % of the remaining wait. */
  readonly withinTolerance: number;
}

export const waitEstimateQuality = (samples: readonly WaitEstimateSample[]): WaitEstimateQuality => {
  const abs: number[] = [];
  const signed: number[] = [];
  /** Per wait (job and when it began): the first estimate's error and the wait's length. */
  const first = new Map<string, { error: number; wait: number }>();
  let within = 0;
  for (const s of samples) {
    const error = s.estimate - s.actual;
    abs.push(Math.abs(error));
    signed.push(error);
    const key = `${s.jobId}@${s.waitingSince}`;
    if (!first.has(key)) first.set(key, { error: Math.abs(error), wait: s.actual - s.waitingSince });
    if (Math.abs(error) <= Math.max(600, 0.2 * (s.actual - s.at))) within++;
  }
  const waits = [...first.values()].map((f) => f.wait);
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const median = (xs: number[]) => (xs.length === 0 ? 0 : percentile(sorted(xs), 50));
  return {
    waits: first.size,
    samples: abs.length,
    medianAbsError: median(abs),
    p90AbsError: abs.length === 0 ? 0 : percentile(sorted(abs), 90),
    medianFirstAbsError: median([...first.values()].map((f) => f.error)),
    medianBias: median(signed),
    medianWait: median(waits),
    withinTolerance: abs.length === 0 ? 0 : within / abs.length,
  };
};
