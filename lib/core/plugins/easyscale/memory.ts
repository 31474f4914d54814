import { isHolding } from '../../framework/compare.ts';
import type { Host } from '../../model/cluster.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import type { Plan } from '../../model/plan.ts';
import {
  allocationCounts,
  countOf,
  countsEqual,
  countsTotal,
  countTypes,
  EMPTY_COUNTS,
  type GpuCounts,
} from './counts.ts';

/**
 * What the intra-job schedulers remember from one round to the next (SchedulerState.elastic): the scale-out each job
 * is trying, so that it can fall back when the measured throughput got worse (EasyScale §3.4, role 3), and the
 * scale-outs that already failed, so that it does not try them again from the same GPUs.
 */

/** A granted scale-out whose effect has not been measured yet. */
export interface ScaleOutTrial {
  readonly from: GpuCounts;
  readonly to: GpuCounts;
  readonly gpuType: GpuTypeId;
  /** Global steps per second measured on `from` when the scale-out was granted. */
  readonly before: number;
}

/** Adding `gpuType` to `from` made the job slower. */
export interface FailedScaleOut {
  readonly from: GpuCounts;
  readonly gpuType: GpuTypeId;
}

export interface ElasticJobMemory {
  readonly trial?: ScaleOutTrial;
  readonly failed?: readonly FailedScaleOut[];
}

export interface ElasticMemory {
  readonly jobs: Readonly<Record<string, ElasticJobMemory>>;
}

/** Failed scale-outs kept per job (the newest): enough to stop ping-pong, bounded so the state stays small. */
export const MAX_FAILED_SCALE_OUTS = 8;

export type TrialVerdict =
  | { readonly kind: 'none' }
  /** The job runs the trial's GPUs but no throughput was measured on them yet. */
  | { readonly kind: 'pending'; readonly trial: ScaleOutTrial }
  | { readonly kind: 'kept'; readonly trial: ScaleOutTrial }
  /** Slower than before: go back to `trial.from`. */
  | { readonly kind: 'reverted'; readonly trial: ScaleOutTrial };

/**
 * Judges a job's scale-out once it runs on the new GPUs: slower than before → revert. A trial whose GPUs the job no
 * longer holds (scaled in meanwhile) is void.
 */
export const judgeTrial = (
  memory: ElasticJobMemory | undefined,
  held: GpuCounts,
  measured: number | undefined,
): TrialVerdict => {
  const trial = memory?.trial;
  if (!trial || !countsEqual(trial.to, held)) return { kind: 'none' };
  if (measured === undefined) return { kind: 'pending', trial };
  return measured < trial.before ? { kind: 'reverted', trial } : { kind: 'kept', trial };
};

/** GPU types the job must not grow by from `counts`: the scale-outs that were measured slower from there. */
export const blockedScaleOuts = (memory: ElasticJobMemory | undefined, counts: GpuCounts): Set<GpuTypeId> =>
  new Set((memory?.failed ?? []).filter((f) => countsEqual(f.from, counts)).map((f) => f.gpuType));

export const withFailure = (
  failed: readonly FailedScaleOut[] | undefined,
  entry: FailedScaleOut,
): FailedScaleOut[] => [...(failed ?? []), entry].slice(-MAX_FAILED_SCALE_OUTS);

/** `memory` without empty parts; undefined when nothing is left to remember. */
export const compactMemory = (memory: ElasticJobMemory): ElasticJobMemory | undefined => {
  const failed = memory.failed && memory.failed.length > 0 ? memory.failed : undefined;
  if (!memory.trial && !failed) return undefined;
  return { ...(memory.trial ? { trial: memory.trial } : {}), ...(failed ? { failed } : {}) };
};

/**
 * The elastic memory after a round, from what the jobs held, what was measured and the final plan (the same inputs the
 * inter-job scheduler judged, so both agree): a trial measured slower becomes a failed scale-out; a trial still
 * waiting for its measurement stays; a job that took more GPUs of one type (a granted proposal, which may also have
 * given back slower GPUs) from a measured allocation starts a trial. A job
 * the plan leaves without GPUs forgets everything (it starts afresh).
 */
export const nextElasticMemory = (
  ordered: readonly JobState[],
  plan: Plan,
  hostOf: (hostId: string) => Host | undefined,
  previous: ElasticMemory | undefined,
): ElasticMemory | undefined => {
  const jobs: Record<string, ElasticJobMemory> = {};
  for (const job of ordered) {
    if (!job.spec.elastic) continue;
    const next = plan.get(job.spec.id);
    if (!next) continue;
    const prev = previous?.jobs[job.spec.id];
    const held = isHolding(job) ? allocationCounts(job.allocation!, hostOf) : EMPTY_COUNTS;
    const nextCounts = allocationCounts(next, hostOf);
    const measured = job.measuredThroughput;
    const verdict = judgeTrial(prev, held, measured);
    let failed = prev?.failed;
    let trial: ScaleOutTrial | undefined;
    if (verdict.kind === 'reverted') {
      failed = withFailure(failed, { from: verdict.trial.from, gpuType: verdict.trial.gpuType });
    } else if (verdict.kind === 'pending' && countsEqual(nextCounts, held)) {
      trial = verdict.trial;
    } else if (measured !== undefined && countsTotal(held) > 0) {
      const grown = grownType(held, nextCounts);
      if (grown !== undefined) trial = { from: held, to: nextCounts, gpuType: grown, before: measured };
    }
    const entry = compactMemory({ ...(trial ? { trial } : {}), ...(failed ? { failed } : {}) });
    if (entry) jobs[job.spec.id] = entry;
  }
  return Object.keys(jobs).length > 0 ? { jobs } : undefined;
};

/**
 * The type a scale-out added: the one type whose count went up from `before` to `after` (a proposal adds one type;
 * its plan may give back GPUs of others). Undefined for a shrink, a fallback or no change.
 */
const grownType = (before: GpuCounts, after: GpuCounts): GpuTypeId | undefined => {
  const grown = countTypes(after).filter((t) => countOf(after, t) > countOf(before, t));
  return grown.length === 1 ? grown[0] : undefined;
};
