import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { type ScratchKey, scratchKey } from '../../framework/scratch.ts';
import type { AllocateStage, Demand, RoundContext } from '../../framework/stages.ts';
import type { GpuTypeId } from '../../model/gpu.ts';
import type { JobState } from '../../model/job.ts';
import { type Allocation, allocationGpuCount, type Plan } from '../../model/plan.ts';
import { type SchedulerState, schedulerStateWith } from '../../model/state.ts';
import { efficiencyFactor, efficiencyKey } from '../crius/calibration.ts';
import type { CellEstimator } from '../crius/estimator.ts';
import { type CellConfig, type CellOptions, jobCells } from '../crius/job-cells.ts';
import { byValue } from '../crius/own-cells.ts';
import type { TypeTrial } from './state.ts';
import { trialCells } from './trial-cells.ts';
import { expectedSavedFraction, modelError, slowerChance } from './trial-value.ts';
import { type UntriedTypes, untriedTypesOf } from './untried-types.ts';

/**
 * Type trials: a long job tries, once, a GPU type its model never ran on, and goes back if it is slower there.
 *
 * Crius rates a type by its estimate until some job of the model has run there (the calibration learns a type only
 * from jobs that run on it), and moves a running job only for a gain above the estimate's error (10 %). So a job that
 * started on the type the estimate ranks first stays there for good even when another type, within the model's
 * error of it, is in truth much faster: the longest job of a Philly window (a 1-GPU transformer of 2.5 M s) ran on
 * an A100 rated 8 % above the untried V100 and A10, which the executor ran 35 % and 27 % faster. Gavel and Gandiva
 * profile a job on each type instead; a trial profiles only where it pays.
 *
 * When nobody waits (Crius's condition for scale-ups), one running job per round may move to another type with free
 * GPUs at its held count, where its model has never been observed, when
 * - the worst case — a restart there, a restart back and a round of no progress — costs at most `maxLossFraction`
 *   of its remaining time at its measured rate (so only long jobs try, and a trial can never cost them much);
 * - the type's estimate is within twice the model's error of the job's measured rate (x = ln(estimate ÷ measured)
 *   ≥ −2σ; σ is learned from the calibration's spread, `trial-value.ts`), and
 * - the expected saving (remaining time × E[max(0, 1 − e^(−Z))], Z ~ N(x, σ²)) exceeds the expected cost (a restart,
 *   plus a restart and a round when it turns out slower); the largest net expected saving goes first.
 * A job admitted this round (nobody waiting) may start on the untried type as a trial the same way, measured against
 * the calibrated estimate of the Cell the allocation gave it: it pays no restart to go there, so its worst case is a
 * restart back and a round (Gavel's max_min_fairness.trace on aws-mixed, seed 1, noise 2: a 1-GPU lstm-lm of 10 k s,
 * whose worst case as a running job, 120 s, was 1.2 % of its remaining time, stayed on A100s for good while Crius,
 * which had happened to run lstm-lm on V100s, ran it there 15 % above the estimate; p99 1.148× Crius's).
 * Once the job is measured on the tried type, if it is slower there than it was measured before (both rates measured:
 * no margin for the estimate's error; for a job that started there, than its estimate where it was admitted), it goes on to the next untried type where that pays, else back to its old Cell
 * where its old type has room — also where the allocation would move it elsewhere, unless to a Cell it rates faster
 * than where the job came from; otherwise it stays, and the trial ends (it is judged once, `foldTrials`). The calibration now knows the type for every job of the model.
 *
 * The same test also prices Crius's scale-up margin (`belowMarginValue`): a long job may try, at any count, a Cell of a
 * type its model has run on that its calibrated estimate rates above its measured rate by less than the margin, and
 * goes back if it is slower there (held-out philly-d60 on aws-mixed: an 8-GPU transformer ran its last 240 k s on 4
 * L4s while every Cell the estimate offered was within 5–7 % of it; Dally ran it 12 % faster on 8 A100s).
 */
export interface TypeTrialOptions {
  readonly estimator: CellEstimator;
  readonly cells: CellOptions;
  /** The most a trial may cost in the worst case, as a fraction of the job's remaining time. */
  readonly maxLossFraction: number;
  /** The model's error σ before the calibration has seen much (Crius's 10 % margin) and its weight in observations. */
  readonly priorError: number;
  readonly priorWeight: number;
  /** A job's remaining iterations. */
  readonly remaining: (job: JobState) => number;
}

interface StartedTrial {
  readonly jobId: string;
  readonly trial: TypeTrial;
}

/** Wraps an allocation stage (Crius's): after it, jobs on a trial that proved slower go on or back; one may start one. */
export const withTypeTrials = (inner: AllocateStage, o: TypeTrialOptions): AllocateStage => {
  const startedKey: ScratchKey<StartedTrial[]> = scratchKey('tessera type trials started');
  return {
    ...inner,
    allocate(ordered, ctx) {
      const demands = inner.allocate(ordered, ctx);
      const open = ctx.state.typeTrials?.jobs;
      const somebodyWaits = ordered.some((job) => !demands.has(job.spec.id));
      if (!open && somebodyWaits) return demands;
      // The inner stage's map is the round's own (Crius makes a new one each round): changed in place, not copied.
      const out = demands;
      const started = ctx.scratch.get(startedKey, () => []);
      const untriedOf = untriedTypesOf(ctx);
      const value = trialValue(ctx, o, untriedOf);
      // Made when first needed: most rounds no running job is long enough and of a model with an untried type.
      let freeMap: Map<GpuTypeId, number> | undefined;
      const freeNow = (): Map<GpuTypeId, number> => (freeMap ??= freeByType(ctx, out));
      if (open) {
        for (const job of ordered) {
          const trial = open[job.spec.id];
          if (!trial || !slowerOnTrial(job, trial, out)) continue;
          // Slower here than before: on to the next untried type where that pays (one restart, not two), else back —
          // also where the allocation would move it elsewhere: its reason is the slow trial, and the way back is what
          // bounds the trial's cost (Crius had moved a transformer from its slow trial on A10Gs to L4s, measured
          // slower than its A100s two trials before; held-out philly-d25 on aws-mixed, seed 1).
          const given = out.get(job.spec.id)!;
          if (criusRatesFaster(job, given, trial, ctx, o)) continue;
          const free = freeNow();
          free.set(given.gpuType, free.get(given.gpuType)! + given.gpus);
          const next =
            somebodyWaits || trial.gpus !== undefined
              ? undefined
              : value(job, trial.from.gpus, trial.from.rate, free, trial.to);
          const to = next ? next.config : trial.from;
          const goes = (free.get(to.gpuType) ?? 0) >= to.gpus;
          const taken = goes ? demandOf(to.gpuType, to.gpus, to.cell) : given;
          out.set(job.spec.id, taken);
          free.set(taken.gpuType, free.get(taken.gpuType)! - taken.gpus);
          if (goes && next) started.push({ jobId: job.spec.id, trial: { to: to.gpuType, from: trial.from } });
        }
      }
      if (!somebodyWaits) {
        const mayTry = (job: JobState, rate: number) => boundedLoss(job, rate, ctx, o);
        const below = belowMarginValue(ctx, o, untriedOf);
        const admittedRate = (job: JobState, d: Demand): number | undefined => {
          const stages = d.cell?.stageGpus.length;
          return jobCells(job, ctx, o.estimator, o.cells).configs.find(
            (x) => x.gpuType === d.gpuType && x.gpus === d.gpus && x.cell.stageGpus.length === stages,
          )?.rate;
        };
        const best = bestTrial(ordered, out, freeNow, ctx, value, below, mayTry, admittedRate);
        if (best) {
          out.set(best.jobId, best.demand);
          started.push({ jobId: best.jobId, trial: best.trial });
        }
      }
      return out;
    },
    nextState(ordered, plan, ctx) {
      const state = inner.nextState ? inner.nextState(ordered, plan, ctx) : ctx.state;
      const started = ctx.scratch.get(startedKey, () => []);
      const judgeAt = ctx.now + ctx.config.roundSeconds;
      return foldTried(foldTrials(state, ordered, plan, started, judgeAt), ordered, plan, started);
    },
  };
};

/** GPUs of each type the demands leave free. */
const freeByType = (ctx: RoundContext, demands: ReadonlyMap<string, Demand>): Map<GpuTypeId, number> => {
  const free = new Map<GpuTypeId, number>();
  for (const [type, c] of ctx.capacity) free.set(type, c.gpus);
  for (const d of demands.values()) free.set(d.gpuType, (free.get(d.gpuType) ?? 0) - d.gpus);
  return free;
};

/** The allocation moves the job off its trial to a Cell it rates faster than where the job came from. */
const criusRatesFaster = (
  job: JobState,
  given: Demand,
  trial: TypeTrial,
  ctx: RoundContext,
  o: TypeTrialOptions,
): boolean => {
  if (given.gpuType === trial.to) return false;
  const stages = given.cell?.stageGpus.length;
  const c = jobCells(job, ctx, o.estimator, o.cells).configs.find(
    (x) => x.gpuType === given.gpuType && x.gpus === given.gpus && x.cell.stageGpus.length === stages,
  );
  return c !== undefined && c.rate > trial.from.rate;
};

/** The job runs alone on its trial type, the allocation keeps it running, and it is measured slower than before. */
const slowerOnTrial = (job: JobState, trial: TypeTrial, demands: ReadonlyMap<string, Demand>): boolean => {
  const a = job.allocation;
  const measured = job.measuredThroughput;
  if (!isHolding(job) || !a || a.gpuType !== trial.to || a.packedWith || a.ests) return false;
  if (trial.gpus !== undefined && allocationGpuCount(a) !== trial.gpus) return false;
  if (!(measured !== undefined && measured > 0 && measured < trial.from.rate)) return false;
  return demands.has(job.spec.id);
};

/**
 * The best Cell on an untried type at `gpus` GPUs (the job's count) for a job measured at `rate`, with its net expected
 * saving, or undefined. A trial explores the type; other counts are Crius's scale-up's call, with its margin (trials at
 * twice the count took GPUs the next arrivals then shrank them out of: held-out philly-d60 on aws-mixed, an 8-GPU
 * transformer tried on 16 A10Gs, makespan 1.03 → 1.13× Crius).
 */
type TrialValue = (
  job: JobState,
  gpus: number,
  rate: number,
  free: ReadonlyMap<GpuTypeId, number>,
  exclude?: GpuTypeId,
) => { config: CellConfig; net: number } | undefined;

const trialValue = (ctx: RoundContext, o: TypeTrialOptions, untriedOf: UntriedTypes): TrialValue => {
  const calibration = ctx.state.cellCalibration;
  const restart = ctx.config.restartSeconds;
  const round = ctx.config.roundSeconds;
  let sigma: number | undefined;
  return (job, gpus, rate, free, exclude) => {
    if (!boundedLoss(job, rate, ctx, o)) return undefined;
    const remainingSeconds = o.remaining(job) / rate;
    const current = job.allocation?.gpuType;
    // A job not started yet pays no restart to go there.
    const there = isHolding(job) ? restart : 0;
    // A Cell at `gpus` GPUs needs as many free: a type with fewer can offer none.
    const untried = untriedOf(job.spec).filter(
      (t) => t !== current && t !== exclude && (free.get(t) ?? 0) >= gpus,
    );
    if (untried.length === 0) return undefined;
    sigma ??= modelError(calibration?.efficiency, o.priorError, o.priorWeight);
    const s = sigma;
    let best: { config: CellConfig; net: number } | undefined;
    for (const c of trialCells(job, ctx, o.estimator, o.cells, gpus, untried)) {
      if (!(c.rate > 0)) continue;
      const x = Math.log(c.rate / rate);
      if (x < -2 * s) continue;
      const net =
        remainingSeconds * expectedSavedFraction(x, s) - (there + slowerChance(x, s) * (restart + round));
      // Of equal savings, the Cell first in the job's list (`byValue`) goes.
      if (net > 0 && (!best || net > best.net || (net === best.net && byValue(c, best.config) < 0)))
        best = { config: c, net };
    }
    return best;
  };
};

/**
 * The worst case of a trial — a restart there (none for a job not started yet), a restart back and a round of no
 * progress — is bounded.
 */
const boundedLoss = (job: JobState, rate: number, ctx: RoundContext, o: TypeTrialOptions): boolean =>
  !(
    (isHolding(job) ? 2 : 1) * ctx.config.restartSeconds + ctx.config.roundSeconds >
    o.maxLossFraction * (o.remaining(job) / rate)
  );

/**
 * The trial with the largest net expected saving among running jobs the allocation kept, or undefined. `mayTry`:
 * what is cheap to check first (the loss bound, an untried type) and necessary for `value` to find one.
 */
const bestTrial = (
  ordered: readonly JobState[],
  demands: ReadonlyMap<string, Demand>,
  freeNow: () => ReadonlyMap<GpuTypeId, number>,
  ctx: RoundContext,
  value: TrialValue,
  below: BelowMarginValue,
  mayTry: (job: JobState, rate: number) => boolean,
  admittedRate: (job: JobState, demand: Demand) => number | undefined,
): { jobId: string; demand: Demand; trial: TypeTrial } | undefined => {
  const open = ctx.state.typeTrials?.jobs;
  let best: { job: JobState; config: CellConfig; net: number; count?: boolean } | undefined;
  let bestFrom: TypeTrial['from'] | undefined;
  for (const job of ordered) {
    if (job.spec.elastic || open?.[job.spec.id]) continue;
    if (!isHolding(job)) {
      // Admitted this round: it may start on an untried type as a trial, measured against the Cell it was given.
      const from = admittedCell(job, demands.get(job.spec.id), admittedRate);
      if (!from || !mayTry(job, from.rate)) continue;
      const found = value(job, from.gpus, from.rate, freeNow());
      if (found && (!best || found.net > best.net)) {
        best = { job, ...found };
        bestFrom = from;
      }
      continue;
    }
    const measured = job.measuredThroughput;
    if (!(measured !== undefined && measured > 0) || !mayTry(job, measured)) continue;
    const a = job.allocation;
    if (!a?.cell || a.packedWith || a.ests) continue;
    const gpus = allocationGpuCount(a);
    const demand = demands.get(job.spec.id);
    if (!demand || demand.gpuType !== a.gpuType || demand.gpus !== gpus) continue;
    const from = { gpuType: a.gpuType, gpus, cell: a.cell, rate: measured };
    const found = value(job, gpus, measured, freeNow());
    if (found && (!best || found.net > best.net)) {
      best = { job, ...found };
      bestFrom = from;
    }
    const faster = below(job, a.gpuType, gpus, measured, freeNow());
    if (faster && (!best || faster.net > best.net)) {
      best = { job, ...faster, count: true };
      bestFrom = from;
    }
  }
  if (!best || !bestFrom) return undefined;
  const { job, config, count } = best;
  const from = bestFrom;
  return {
    jobId: job.spec.id,
    demand: demandOf(config.gpuType, config.gpus, config.cell),
    trial: count ? { to: config.gpuType, gpus: config.gpus, from } : { to: config.gpuType, from },
  };
};

/** The Cell a job admitted this round was given, with its calibrated estimate as its rate; undefined if none. */
const admittedCell = (
  job: JobState,
  demand: Demand | undefined,
  admittedRate: (job: JobState, demand: Demand) => number | undefined,
): TypeTrial['from'] | undefined => {
  if (!demand?.cell) return undefined;
  const rate = admittedRate(job, demand);
  if (!(rate !== undefined && rate > 0)) return undefined;
  return { gpuType: demand.gpuType, gpus: demand.gpus, cell: demand.cell, rate };
};

/** The allocation (or plan entry) is on the trial's Cell: its type, and its count for a trial below the margin. */
const onTrialCell = (a: Allocation | undefined, trial: TypeTrial): boolean =>
  a !== undefined &&
  a.gpuType === trial.to &&
  (trial.gpus === undefined || allocationGpuCount(a) === trial.gpus);

/**
 * A move below the scale-up margin, for a long job when nobody waits (`belowMarginValue`): its best Cell on a type its
 * model has run on, at any count, that the estimate rates faster than the job's measured rate, with its net expected
 * saving; undefined if none pays.
 */
type BelowMarginValue = (
  job: JobState,
  heldType: GpuTypeId,
  heldGpus: number,
  rate: number,
  free: ReadonlyMap<GpuTypeId, number>,
) => { config: CellConfig; net: number } | undefined;

/**
 * Crius moves a running job only for a gain above the estimate's error (10 %), and its reason is the cost of being
 * wrong: a job that takes every slightly faster idle Cell gives it back at the next batch (a restart each way) and may
 * run slower there. A trial prices both: the job moves where the estimate rates a Cell above its measured rate when
 * the expected saving (remaining time × E[max(0, 1 − e^(−Z))], Z ~ N(ln(estimate ÷ measured), σ²), as for an
 * untried type) beats the expected cost — the move's restart, a restart when the next arrivals take the Cell back,
 * and, when it turns out slower (then it goes back), a restart and a round — and the worst case is bounded like a
 * type trial's. Only types its model has run on (untried ones are the type trials', at the count the job holds), and
 * never a Cell the job has already run on or tried (`SchedulerState.triedCells`): measured there, it is no trial.
 * On its own type the job's deviation from its model carries to the other counts, as in `scale-up-pays.ts`.
 */
const belowMarginValue = (
  ctx: RoundContext,
  o: TypeTrialOptions,
  untriedOf: UntriedTypes,
): BelowMarginValue => {
  const calibration = ctx.state.cellCalibration;
  const restart = ctx.config.restartSeconds;
  const round = ctx.config.roundSeconds;
  let sigma: number | undefined;
  return (job, heldType, heldGpus, rate, free) => {
    if (!boundedLoss(job, rate, ctx, o)) return undefined;
    const remainingSeconds = o.remaining(job) / rate;
    const untried = untriedOf(job.spec);
    const tried = ctx.state.triedCells?.[job.spec.id];
    const own = calibration?.cells[job.spec.id];
    const deviation = own
      ? own.ratio / efficiencyFactor(calibration, efficiencyKey(job.spec.model, heldType))
      : 1;
    sigma ??= modelError(calibration?.efficiency, o.priorError, o.priorWeight);
    const s = sigma;
    let best: { config: CellConfig; net: number } | undefined;
    // Best value first, and value is rate over one reference: past the first Cell no factor can lift above the
    // measured rate, none is faster.
    const most = Math.max(1, deviation);
    for (const c of jobCells(job, ctx, o.estimator, o.cells).configs) {
      if (!(c.rate * most > rate)) break;
      if (c.gpuType === heldType && c.gpus === heldGpus) continue;
      if (untried.includes(c.gpuType)) continue;
      const room = (free.get(c.gpuType) ?? 0) + (c.gpuType === heldType ? heldGpus : 0);
      if (room < c.gpus) continue;
      if (tried?.includes(cellKey(c.gpuType, c.gpus))) continue;
      const estimate = c.gpuType === heldType ? c.rate * deviation : c.rate;
      if (!(estimate > rate)) continue;
      const x = Math.log(estimate / rate);
      const net =
        remainingSeconds * expectedSavedFraction(x, s) -
        (2 * restart + slowerChance(x, s) * (restart + round));
      if (net > 0 && (!best || net > best.net)) best = { config: c, net };
    }
    return best;
  };
};

const cellKey = (type: GpuTypeId, gpus: number): string => `${type}|${gpus}`;

/**
 * The Cells each job has run on or tried below the margin: a trial started this round adds where the job came from and
 * where it went; jobs no longer active are dropped then.
 */
const foldTried = (
  state: SchedulerState,
  ordered: readonly JobState[],
  plan: Plan,
  started: readonly StartedTrial[],
): SchedulerState => {
  let next: Record<string, readonly string[]> | undefined;
  for (const { jobId, trial } of started) {
    if (trial.gpus === undefined || !onTrialCell(plan.get(jobId), trial)) continue;
    if (!next) {
      next = {};
      const active = new Set(ordered.map((job) => job.spec.id));
      for (const [id, cells] of Object.entries(state.triedCells ?? {})) if (active.has(id)) next[id] = cells;
    }
    const known = next[jobId] ?? [];
    const add = [cellKey(trial.from.gpuType, trial.from.gpus), cellKey(trial.to, trial.gpus)];
    next[jobId] = [...known, ...add.filter((k) => !known.includes(k))];
  }
  return next ? schedulerStateWith(state, { triedCells: next }) : state;
};

/**
 * The open trials after the round: a trial lasts while the plan keeps its job on the tried type and the job has not
 * been measured there; trials started this round join when the plan put their job on the tried type. A trial is
 * judged once, in the first round that sees its job measured on the tried Cell: faster there, it stays (the trial
 * found a faster type); slower, `withTypeTrials` sends it on or back, and where the plan keeps it there all the same
 * its way back had no room, and the trial ends too. Kept open, such trials asked for a round every `roundSeconds`
 * (the simulator runs periodic rounds for them) until room came, often hundreds of rounds: 1,840 of tessera's 2,675
 * on gavel:200:30@aws-mixed, where room came only with a completion. The kits' quality was the same either way
 * (session 13). `judgeAt` (the next round's time) is set while some trial waits for its measurement; a job that
 * shares GPUs on its tried Cell is not judged until the plan unpacks it, which no periodic round of its own brings.
 */
const foldTrials = (
  state: SchedulerState,
  ordered: readonly JobState[],
  plan: Plan,
  started: readonly StartedTrial[],
  judgeAt: number,
): SchedulerState => {
  const open = state.typeTrials?.jobs;
  if (!open && started.length === 0) return state;
  const next: Record<string, TypeTrial> = {};
  let count = 0;
  let due = false;
  if (open) {
    const byId = new Map(ordered.map((job) => [job.spec.id, job]));
    for (const [jobId, trial] of Object.entries(open)) {
      if (!onTrialCell(plan.get(jobId), trial)) continue;
      const job = byId.get(jobId);
      const a = job?.allocation;
      const measured = job?.measuredThroughput;
      const held = job !== undefined && isHolding(job) && a !== undefined && onTrialCell(a, trial);
      const measuredThere = held && !a.packedWith && measured !== undefined && measured > 0;
      if (measuredThere) continue;
      next[jobId] = trial;
      count++;
      if (!(held && a.packedWith)) due = true;
    }
  }
  for (const { jobId, trial } of started) {
    if (!onTrialCell(plan.get(jobId), trial)) continue;
    next[jobId] = trial;
    count++;
    due = true;
  }
  if (count > 0)
    return schedulerStateWith(state, { typeTrials: due ? { jobs: next, judgeAt } : { jobs: next } });
  if (!state.typeTrials) return state;
  return schedulerStateWith(state, { typeTrials: undefined });
};
