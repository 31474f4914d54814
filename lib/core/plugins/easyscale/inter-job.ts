import type { JobState } from '../../model/job.ts';
import {
  addCounts,
  countsEqual,
  countsTotal,
  countsWithin,
  EMPTY_COUNTS,
  type GpuCounts,
  minCounts,
  subtractCounts,
} from './counts.ts';
import {
  bestPlanWithin,
  DEFAULT_GROWTH_FACTOR,
  DEFAULT_MAX_WASTE,
  type EstPlan,
  minimalPlan,
  type Proposal,
  proposals,
} from './intra-job.ts';
import type { ElasticJobModel } from './job-model.ts';
import { blockedScaleOuts, type ElasticJobMemory, judgeTrial } from './memory.ts';

/** Why a job gets the GPUs it gets this round. */
export type ElasticReason =
  /** Keeps what it holds (role 1 re-plans its ESTs on it). */
  | 'keep'
  /** Holds fewer GPUs than before: guaranteed jobs took some, or its best plan does not need them all. */
  | 'shrink'
  /** Had none; gets its minimal plan. */
  | 'start'
  /** A scale-out proposal was accepted. */
  | 'grow'
  /** The last scale-out was measured slower: back to the GPUs before it. */
  | 'fallback';

export interface ElasticCandidate {
  readonly job: JobState;
  readonly model: ElasticJobModel;
  /** GPUs per type the job holds now (empty when it waits). */
  readonly held: GpuCounts;
  readonly memory?: ElasticJobMemory;
}

export interface ElasticDecision {
  readonly plan: EstPlan;
  readonly reason: ElasticReason;
  /** The accepted proposal when `reason` is `grow`. */
  readonly proposal?: Proposal;
}

/** A proposal with the job that submitted it. */
export interface SubmittedProposal extends Proposal {
  readonly jobId: string;
}

export interface InterJobOptions {
  readonly maxWaste?: number;
  readonly growthFactor?: number;
}

export interface InterJobResult {
  readonly decisions: ReadonlyMap<string, ElasticDecision>;
  /** Every proposal submitted this round, in the order the greedy considered them. */
  readonly proposals: readonly SubmittedProposal[];
  /** GPUs per type nobody took. */
  readonly free: GpuCounts;
}

/**
 * EasyScale's inter-job scheduler on GPU counts (§3.4 and the artifact's policy), over `free` = the GPUs guaranteed
 * jobs leave idle:
 * 1. jobs holding GPUs keep them, first come first served, as far as `free` still has them (guaranteed jobs took the
 *    rest: the elastic tier yields), re-planned by their intra-job scheduler; a scale-out measured slower falls back
 *    (the memory of trials is updated from the round's outcome by `nextElasticMemory`);
 * 2. jobs without GPUs get their minimal plan, first come first served, when it fits;
 * 3. the proposals of jobs that kept their GPUs (measured, no trial pending) are sorted by speedup per GPU
 *    (inc_perf) descending, ties to more GPUs, and accepted while they fit, one per job.
 * `candidates` come in first-come-first-served order. Pure.
 */
export const scheduleElastic = (
  candidates: readonly ElasticCandidate[],
  free: GpuCounts,
  options: InterJobOptions = {},
): InterJobResult => {
  const maxWaste = options.maxWaste ?? DEFAULT_MAX_WASTE;
  const growthFactor = options.growthFactor ?? DEFAULT_GROWTH_FACTOR;
  let left = free;
  const decisions = new Map<string, ElasticDecision>();
  const mayPropose = new Set<string>();

  const fallbacks: { c: ElasticCandidate; from: GpuCounts }[] = [];
  for (const c of candidates) {
    if (countsTotal(c.held) === 0) continue;
    const verdict = judgeTrial(c.memory, c.held, c.job.measuredThroughput);
    // A job falling back first keeps the part of its old GPUs it still holds (all of them after a plain scale-out);
    // the rest it takes back below once every other job has kept its own. If it holds none of them (it moved to
    // other GPUs), it keeps the new ones until the old ones are free again: slower is better than nothing.
    const overlap = verdict.kind === 'reverted' ? minCounts(verdict.trial.from, c.held) : EMPTY_COUNTS;
    const fallback = countsTotal(overlap) > 0;
    const target = fallback ? overlap : c.held;
    if (verdict.kind === 'reverted') fallbacks.push({ c, from: verdict.trial.from });
    const plan = bestPlanWithin(c.model, minCounts(target, left), maxWaste);
    if (!plan) continue;
    const reason: ElasticReason = fallback
      ? 'fallback'
      : countsEqual(plan.counts, c.held)
        ? 'keep'
        : 'shrink';
    left = subtractCounts(left, plan.counts);
    decisions.set(c.job.spec.id, { plan, reason });
    const judged = verdict.kind === 'none' || verdict.kind === 'kept';
    if (reason === 'keep' && judged && c.job.measuredThroughput !== undefined) {
      mayPropose.add(c.job.spec.id);
    }
  }
  for (const { c, from } of fallbacks) {
    const kept = decisions.get(c.job.spec.id)?.plan;
    const available = kept ? addCounts(left, kept.counts) : left;
    if (!countsWithin(from, available)) continue;
    const plan = bestPlanWithin(c.model, from, maxWaste);
    if (!plan) continue;
    left = subtractCounts(available, plan.counts);
    decisions.set(c.job.spec.id, { plan, reason: 'fallback' });
  }
  // Below its minimum a job cannot run: it waits, and its GPUs go back to the pool.
  for (const c of candidates) {
    const decision = decisions.get(c.job.spec.id);
    if (decision && countsTotal(decision.plan.counts) < c.model.minGpus) {
      left = addCounts(left, decision.plan.counts);
      decisions.delete(c.job.spec.id);
      mayPropose.delete(c.job.spec.id);
    }
  }

  for (const c of candidates) {
    if (countsTotal(c.held) > 0 || decisions.has(c.job.spec.id)) continue;
    const plan = minimalPlan(c.model, left, maxWaste);
    if (!plan) continue;
    left = subtractCounts(left, plan.counts);
    decisions.set(c.job.spec.id, { plan, reason: 'start' });
  }

  const submitted: { proposal: Proposal; order: number; candidate: ElasticCandidate }[] = [];
  candidates.forEach((c, order) => {
    const decision = decisions.get(c.job.spec.id);
    if (!decision || !mayPropose.has(c.job.spec.id)) return;
    const blocked = blockedScaleOuts(c.memory, decision.plan.counts);
    for (const proposal of proposals(c.model, decision.plan, {
      room: left,
      maxWaste,
      growthFactor,
      blocked,
    })) {
      submitted.push({ proposal, order, candidate: c });
    }
  });
  submitted.sort(
    (a, b) =>
      byScore(a.proposal.incPerf, b.proposal.incPerf) ||
      b.proposal.added - a.proposal.added ||
      a.order - b.order ||
      (a.proposal.gpuType < b.proposal.gpuType ? -1 : 1),
  );
  const granted = new Set<string>();
  for (const { proposal, candidate } of submitted) {
    const id = candidate.job.spec.id;
    const current = decisions.get(id)!.plan.counts;
    // The top-1 plan on the grown set may give back held GPUs: only what it takes beyond them must be free.
    const available = addCounts(left, current);
    if (granted.has(id) || !countsWithin(proposal.plan.counts, available)) continue;
    left = subtractCounts(available, proposal.plan.counts);
    granted.add(id);
    decisions.set(id, { plan: proposal.plan, reason: 'grow', proposal });
  }
  return {
    decisions,
    proposals: submitted.map((s) => ({ jobId: s.candidate.job.spec.id, ...s.proposal })),
    free: left,
  };
};

/** Higher score first; scores within rounding noise tie (so the tie-breaks decide, not float dust). */
const byScore = (a: number, b: number): number =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)) ? 0 : b - a;
