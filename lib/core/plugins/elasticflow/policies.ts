import { byPriorityThenArrival, isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { allowedTypes, bestShape } from '../../framework/estimates.ts';
import type { AllocateStage, Demand, Policy, Rejection, RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import { type JobState, remainingIterations } from '../../model/job.ts';
import { allocationGpuCount } from '../../model/plan.ts';
import { arrivalOrder } from '../baselines/fifo.ts';
import { keepThenFit } from '../baselines/keep-then-fit.ts';

/**
 * ElasticFlow (Gu et al., ASPLOS '23) as the Crius paper runs it: elastic scaling of data-parallel jobs on one
 * GPU type per job (it is not heterogeneity-aware), deadline-aware admission, throughput from the scheduler's
 * performance model (the data-parallel profile, not Cells). Each round, per GPU type:
 * 1. deadline jobs in earliest-deadline order get their minimum satisfactory share — the fewest GPUs (a power of
 *    two) that finish them by the deadline; admitted (running) jobs first, so admission never breaks a guarantee;
 * 2. jobs without a (still reachable) deadline get the fewest GPUs they run on, oldest first;
 * 3. the GPUs left go, one doubling at a time, to the job with the largest marginal throughput gain per GPU,
 *    restoring running jobs to their current size first (a rescale costs a restart).
 * `elasticflow` drops a waiting job whose deadline no share can meet (admission control); `elasticflow-ls` loosens
 * every deadline instead (×`loosen` from submission; jobs without one get `loosen` × their estimated run time on
 * the requested GPUs) and never drops: a job whose loosened deadline passed is served best-effort.
 */
export interface ElasticFlowOptions {
  readonly name: string;
  /** Deadline loosening factor (ElasticFlow-LS); undefined = the jobs' own deadlines, with drops. */
  readonly loosen?: number;
  /** Largest count as a multiple of the request (the same {…, 2N} ceiling Crius has). */
  readonly maxScale: number;
  /** Smallest normalised gain per added GPU worth a doubling. */
  readonly minMarginalGain: number;
}

interface Sized {
  readonly job: JobState;
  readonly type: GpuTypeId;
  /** Powers of two the job runs on (rate > 0), ascending, with their rates. */
  readonly counts: readonly { readonly gpus: number; readonly rate: number }[];
  readonly deadline?: number;
  readonly current?: number;
}

const powersOfTwo = (max: number): number[] => {
  const out: number[] = [];
  for (let g = 1; g <= max; g *= 2) out.push(g);
  return out;
};

/** The one type an ElasticFlow job uses: where it runs, its request, else the allowed type with most GPUs. */
const typeOf = (job: JobState, ctx: RoundContext): GpuTypeId | undefined => {
  if (isHolding(job)) return job.allocation!.gpuType;
  const allowed = allowedTypes(job.spec, ctx);
  const preferred = job.spec.preferredGpuType;
  if (preferred && allowed.includes(preferred)) return preferred;
  return [...allowed].sort((a, b) => (ctx.capacity.get(b)?.gpus ?? 0) - (ctx.capacity.get(a)?.gpus ?? 0))[0];
};

const sized = (job: JobState, ctx: RoundContext, o: ElasticFlowOptions): Sized | undefined => {
  const type = typeOf(job, ctx);
  const capacity = type ? ctx.capacity.get(type) : undefined;
  if (!type || !capacity) return undefined;
  const counts = powersOfTwo(Math.min(capacity.gpus, Math.max(1, o.maxScale * job.spec.gpus)))
    .map((gpus) => ({
      gpus,
      rate: ctx.perf.throughput({
        model: job.spec.model,
        batchSize: job.spec.batchSize,
        gpuType: type,
        gpus,
        shape: bestShape(gpus, capacity),
      }).iterationsPerSecond,
    }))
    .filter((c) => c.rate > 0);
  const deadline = effectiveDeadline(job, type, ctx, o);
  return {
    job,
    type,
    counts,
    ...(deadline !== undefined ? { deadline } : {}),
    ...(isHolding(job) ? { current: allocationGpuCount(job.allocation!) } : {}),
  };
};

const effectiveDeadline = (
  job: JobState,
  type: GpuTypeId,
  ctx: RoundContext,
  o: ElasticFlowOptions,
): number | undefined => {
  const { spec } = job;
  if (o.loosen === undefined) return spec.deadline;
  if (spec.deadline !== undefined) return spec.submitTime + o.loosen * (spec.deadline - spec.submitTime);
  const capacity = ctx.capacity.get(type);
  const rate = ctx.perf.throughput({
    model: spec.model,
    batchSize: spec.batchSize,
    gpuType: type,
    gpus: spec.gpus,
    shape: bestShape(spec.gpus, capacity),
  }).iterationsPerSecond;
  return rate > 0 ? spec.submitTime + (o.loosen * spec.iterations) / rate : undefined;
};

/** The fewest GPUs that finish the job by its deadline from now, if any. */
const minimumShare = (s: Sized, ctx: RoundContext): number | undefined => {
  if (s.deadline === undefined) return undefined;
  for (const c of s.counts) {
    // A running job pays a restart to change size; a waiting one only if it has a checkpoint to restore.
    const restart =
      s.current === c.gpus || (s.current === undefined && s.job.progress === 0)
        ? 0
        : ctx.config.restartSeconds;
    if (ctx.now + restart + remainingIterations(s.job) / c.rate <= s.deadline) return c.gpus;
  }
  return undefined;
};

export const elasticFlowAllocate = (o: ElasticFlowOptions): AllocateStage => ({
  name: o.name,
  largestSize: (spec) => Math.max(...powersOfTwo(Math.max(1, o.maxScale * spec.gpus))),

  reject(jobs, ctx): Rejection[] {
    const out: Rejection[] = [];
    for (const job of jobs) {
      if (isHolding(job)) continue;
      const s = sized(job, ctx, o);
      if (s && s.counts.length === 0) {
        out.push({
          jobId: job.spec.id,
          reason: `${job.spec.model} (batch ${job.spec.batchSize}) makes no progress on any power-of-two share of ${s.type} (zero estimated throughput: it does not fit in memory)`,
        });
        continue;
      }
      if (o.loosen !== undefined || job.spec.deadline === undefined) continue;
      if (s && minimumShare(s, ctx) === undefined) {
        out.push({
          jobId: job.spec.id,
          reason: `no share of ${s.type} meets its deadline ${job.spec.deadline} s (not admitted)`,
        });
      }
    }
    return out;
  },

  allocate(ordered, ctx): Map<string, Demand> {
    const remaining = new Map([...ctx.capacity].map(([t, c]) => [t, c.gpus]));
    const all = ordered
      .map((job) => sized(job, ctx, o))
      .filter((s): s is Sized => !!s && s.counts.length > 0);
    const guaranteed: { s: Sized; share: number }[] = [];
    const bestEffort: Sized[] = [];
    for (const s of all) {
      const share = minimumShare(s, ctx);
      if (share !== undefined) guaranteed.push({ s, share });
      else bestEffort.push(s);
    }
    guaranteed.sort(
      (a, b) =>
        Number(!!b.s.current) - Number(!!a.s.current) ||
        a.s.deadline! - b.s.deadline! ||
        byPriorityThenArrival(a.s.job, b.s.job),
    );
    bestEffort.sort(
      (a, b) => Number(!!b.current) - Number(!!a.current) || byPriorityThenArrival(a.job, b.job),
    );

    const granted = new Map<string, { s: Sized; gpus: number }>();
    const grant = (s: Sized, gpus: number): void => {
      if ((remaining.get(s.type) ?? 0) < gpus) return;
      remaining.set(s.type, remaining.get(s.type)! - gpus);
      granted.set(s.job.spec.id, { s, gpus });
    };
    for (const { s, share } of guaranteed) grant(s, share);
    for (const s of bestEffort) grant(s, s.counts[0]!.gpus);

    // Marginal-return scaling of what is left.
    for (;;) {
      let best: { id: string; next: number; score: number } | undefined;
      for (const [id, g] of granted) {
        const at = g.s.counts.findIndex((c) => c.gpus === g.gpus);
        const next = g.s.counts[at + 1];
        if (!next || next.gpus - g.gpus > (remaining.get(g.s.type) ?? 0)) continue;
        const reference = g.s.counts[0]!.rate;
        const gain = (next.rate - g.s.counts[at]!.rate) / reference / (next.gpus - g.gpus);
        const restoring = g.s.current !== undefined && g.s.current >= next.gpus;
        if (!restoring && gain < o.minMarginalGain) continue;
        const score = gain + (restoring ? 1e6 : 0);
        if (!best || score > best.score) best = { id, next: next.gpus, score };
      }
      if (!best) break;
      const g = granted.get(best.id)!;
      remaining.set(g.s.type, remaining.get(g.s.type)! - (best.next - g.gpus));
      granted.set(best.id, { s: g.s, gpus: best.next });
    }

    const demands = new Map<string, Demand>();
    for (const [id, g] of granted) demands.set(id, demandOf(g.s.type, g.gpus));
    return demands;
  },
});

const DEFAULTS = { maxScale: 2, minMarginalGain: 0.05 } as const;

const elasticflow: Policy = {
  name: 'elasticflow',
  description:
    'ElasticFlow: deadline-aware admission (minimum satisfactory share, earliest deadline first, drops jobs whose deadline no share meets), elastic power-of-two scaling by marginal throughput per GPU, one GPU type per job, data-parallel throughput estimates; jobs without a deadline are best-effort.',
  order: arrivalOrder,
  allocate: elasticFlowAllocate({ name: 'elasticflow', ...DEFAULTS }),
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
};

const elasticflowLs: Policy = {
  name: 'elasticflow-ls',
  description:
    "ElasticFlow-LS (the Crius paper's baseline): ElasticFlow with loosened deadlines (2× from submission; jobs without one get 2× their estimated run time on the requested GPUs), never dropping a job.",
  order: arrivalOrder,
  allocate: elasticFlowAllocate({ name: 'elasticflow-ls', loosen: 2, ...DEFAULTS }),
  place: keepThenFit({ strategy: 'consolidated', blocking: false }),
};

export const ELASTICFLOW_POLICIES: readonly Policy[] = [elasticflow, elasticflowLs];
