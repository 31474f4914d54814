import { isHolding } from '../../framework/compare.ts';
import { demandOf } from '../../framework/demand-of.ts';
import { allowedTypes } from '../../framework/estimates.ts';
import { memoKey } from '../../framework/round-memo.ts';
import { scratchKey } from '../../framework/scratch.ts';
import type { AllocateStage, Demand, Rejection, RoundContext } from '../../framework/stages.ts';
import type { JobState } from '../../model/job.ts';
import { allocationGpuCount } from '../../model/plan.ts';
import { type SchedulerState, schedulerStateWith } from '../../model/state.ts';
import { type Observation, observeKeyed } from './calibration.ts';
import { type CellEstimator, consolidatedLayout } from './estimator.ts';
import { withEveryOption } from './every-option.ts';
import { heldJob, observationOf } from './held-job.ts';
import {
  type CellConfig,
  type CellOptions,
  cellKey,
  countsFor,
  heldCapacityKey,
  heldEstimate,
  type JobCells,
  jobCells,
  meetsDeadline,
  rawCell,
  roundCapacityKeys,
} from './job-cells.ts';
import { displacements, type ReclaimFasterOptions, reclaimFaster } from './reclaim-faster.ts';
import {
  admissionConfigs,
  applyChoice,
  Budget,
  type Choice,
  directFit,
  MoveCache,
  type SearchContext,
  scaleResource,
  scaleUp,
} from './search.ts';
import type { CellCalibrationState } from './state.ts';
import type { Take, TakeTest, TakeView } from './take.ts';
import { VirtualAllocation } from './virtual.ts';

/**
 * Crius's allocation stage (§6, Algorithm 1) in Tessera's round. Every round:
 * 1. jobs holding GPUs keep their Cells in the virtual allocation;
 * 2. waiting jobs, oldest first, each get CellBasedSched(job): the best choice of ≤ depth scaling moves that
 *    admits them; a job without one tries opportunistic execution's rule — jobs that arrived after it and now
 *    hold GPUs it could use are suspended once that frees its smallest Cell — and otherwise pends;
 * 3. when nobody pends, CellBasedSched() gives idle GPUs to running jobs (larger count, faster type);
 * 4. the virtual allocation becomes the round's demands (FinalizeAlloc), each carrying its Cell.
 * Estimates are memoised in the estimator and calibrated from observed throughput (`nextState`).
 * The stage is reusable as Tessera's allocation stage: it only needs arrival order and a placement stage that
 * honours `Demand.cell` (keep-then-fit, consolidated).
 */
export interface CriusAllocateOptions extends CellOptions {
  readonly name: string;
  /** Search depth: scaling moves per choice (Crius default 3). */
  readonly depth: number;
  /** Evaluated choices per round before the search stops looking for moves (the wall-time budget as a count). */
  readonly choiceBudget: number;
  /** Candidate moves per GPU type the depth-bounded search combines. */
  readonly breadth: number;
  /** Relative throughput gain a running job needs to be scaled up (a restart costs). */
  readonly minScaleUpGain: number;
  /** Opportunistic execution: a pending job suspends later arrivals once that frees its smallest Cell. */
  readonly opportunistic: boolean;
  readonly estimator: CellEstimator;
  /** A waiting job takes a clearly faster Cell from jobs later in the order (tessera; `reclaim-faster.ts`). */
  readonly reclaimFaster?: ReclaimFasterOptions;
  /** Per round, which scale-ups (above `minScaleUpGain`) pay (tessera: `plugins/tessera/scale-up-pays.ts`). */
  readonly scaleUpPays?: (
    ordered: readonly JobState[],
    ctx: RoundContext,
  ) => (jobId: string, from: CellConfig, to: CellConfig, cells: JobCells) => boolean;
  /** Per round, which jobs' scale-ups `depth` does not count (tessera: `plugins/tessera/unstarted-scale-ups.ts`). */
  readonly scaleUpBeyondDepth?: (
    ordered: readonly JobState[],
    ctx: RoundContext,
  ) => (jobId: string) => boolean;
  /**
   * Per round, whether admitting a waiting job by taking GPUs from others (the search's moves, opportunistic
   * execution's suspensions) pays (tessera: `plugins/tessera/take-pays.ts`); every take pays when absent.
   */
  readonly takePays?: (ordered: readonly JobState[], ctx: RoundContext) => TakeTest;
  /** Per round, each job's scale-up gain margin (`minScaleUpGain` when absent; tessera: `unstarted-below-margin.ts`). */
  readonly scaleUpMargin?: (ordered: readonly JobState[], ctx: RoundContext) => (jobId: string) => number;
  /**
   * A running job held below its request gets its request back on its type, from free GPUs and where the scale-up
   * pays, before a job later in the order is admitted (tessera; `restoreAheadOf`). Without it the free GPUs go first to
   * waiting jobs, at half their request if need be, and a job ahead grows only when nobody pends.
   */
  readonly restoreAhead?: boolean;
}

// The Cells of each job, computed once per round and options (reject, allocate and nextState share them). Keyed by
// the calibration too: `nextState` may see a context whose state differs from the one the round started with.
// Per options object: the Cells without and with the deadline filter.
type CellsByJob = Map<string, JobCells>;
const JOB_CELLS =
  scratchKey<Map<CellCalibrationState | undefined, Map<CriusAllocateOptions, [CellsByJob, CellsByJob]>>>(
    'crius job cells',
  );

/** The round's Cells by job id for these options and this calibration (resolve once, then look up per job). */
const roundCells = (ctx: RoundContext, o: CriusAllocateOptions, deadlines: boolean): CellsByJob => {
  const byCalibration = ctx.scratch.get(JOB_CELLS, () => new Map());
  let byOptions = byCalibration.get(ctx.state.cellCalibration);
  if (!byOptions) {
    byOptions = new Map();
    byCalibration.set(ctx.state.cellCalibration, byOptions);
  }
  let caches = byOptions.get(o);
  if (!caches) {
    caches = [new Map(), new Map()];
    byOptions.set(o, caches);
  }
  return caches[deadlines ? 1 : 0];
};

/** The job's Cells from the round's `cache` (as `roundCells` gave it for `deadlines`), made on first use. */
const cellsIn = (
  cache: CellsByJob,
  job: JobState,
  ctx: RoundContext,
  o: CriusAllocateOptions,
  deadlines: boolean,
): JobCells => {
  let cells = cache.get(job.spec.id);
  if (!cells) {
    cells = makeCells(job, ctx, o, deadlines);
    cache.set(job.spec.id, cells);
  }
  return cells;
};

const makeCells = (
  job: JobState,
  ctx: RoundContext,
  o: CriusAllocateOptions,
  deadlines: boolean,
  keys = roundCapacityKeys(ctx),
): JobCells => {
  o.estimator.learn(job.spec);
  return jobCells(job, ctx, o.estimator, deadlines === o.deadlines ? o : { ...o, deadlines }, keys);
};

/**
 * What `allocate` found this round, for `nextState`: the list it was given, each job's rank there and its Cells by
 * rank (each running job's with its allocation's record). `nextState` reads them when given the very same list.
 */
interface AllocatePass {
  readonly ordered: readonly JobState[];
  readonly rank: ReadonlyMap<string, number>;
  readonly cellsAt: readonly (JobCells | undefined)[];
}
const ALLOCATE_PASS = scratchKey<Map<CriusAllocateOptions, AllocatePass>>('crius allocate pass');

export const criusAllocate = (options: CriusAllocateOptions): AllocateStage =>
  allocateStage(withEveryOption(options));

const allocateStage = (o: CriusAllocateOptions): AllocateStage => ({
  name: o.name,

  largestSize: (spec) => Math.max(...countsFor(spec.gpus, o.countScaling)),
  smallestSize: (spec) => Math.min(...countsFor(spec.gpus, o.countScaling)),

  reject(jobs, ctx): Rejection[] {
    const out: Rejection[] = [];
    const cache = roundCells(ctx, o, false);
    for (const job of jobs) {
      const any = cellsIn(cache, job, ctx, o, false);
      // A holding job is never rejected: its Cells are not read (`OwnCells` makes them only when read).
      if (!isHolding(job) && any.configs.length === 0) {
        out.push({ jobId: job.spec.id, reason: noCellReason(job, ctx, o) });
        continue;
      }
      if (!o.deadlines || job.spec.deadline === undefined) continue;
      const stays = (c: CellConfig) => c === any.current;
      if (!any.configs.some((c) => meetsDeadline(job, c.rate, ctx, stays(c)))) {
        out.push({
          jobId: job.spec.id,
          reason: `cannot finish by its deadline ${job.spec.deadline} s on any Cell (dropped early)`,
        });
      }
    }
    return out;
  },

  allocate(ordered, ctx): Map<string, Demand> {
    const capacity = new Map([...ctx.capacity].map(([type, c]) => [type, c.gpus]));
    // The order stage alone decides who goes first: ranks are positions in `ordered`.
    const rank = new Map<string, number>();
    for (let i = 0; i < ordered.length; i++) rank.set(ordered[i]!.spec.id, i);
    const byId = { get: (id: string): JobState | undefined => byRank(ordered, rank, id) };
    const vc = new VirtualAllocation(capacity, (id) => rank.get(id) ?? 0);
    // The state (and so the calibration) is the same throughout the stage: look the round's Cells up once, then
    // keep each job's by its rank (the search asks for them again and again). When `reject` has not made them (tessera
    // has none), they are made here, by rank alone (no map by job id).
    const roundCache = roundCells(ctx, o, o.deadlines);
    const rejected = roundCache.size > 0;
    const cellsAt: (JobCells | undefined)[] = new Array(ordered.length);
    const keys = roundCapacityKeys(ctx);
    const cellsAtRank = (r: number): JobCells => {
      let cells = cellsAt[r];
      if (!cells) {
        const job = ordered[r]!;
        cells = rejected
          ? cellsIn(roundCache, job, ctx, o, o.deadlines)
          : makeCells(job, ctx, o, o.deadlines, keys);
        cellsAt[r] = cells;
      }
      return cells;
    };
    const cellsOfJob = (job: JobState): JobCells => cellsAtRank(rank.get(job.spec.id)!);
    ctx.scratch.get(ALLOCATE_PASS, () => new Map()).set(o, { ordered, rank, cellsAt });
    const cellsOf = (jobId: string): JobCells | undefined => {
      const r = rank.get(jobId);
      return r === undefined ? undefined : cellsAtRank(r);
    };
    const s: SearchContext = {
      vc,
      budget: new Budget(o.choiceBudget),
      depth: o.depth,
      breadth: o.breadth,
      cellsOf,
      // Always present (undefined without the rule): one shape of search context for crius and tessera, so the
      // search code compiled for one is not thrown away ("wrong map") when the other runs.
      scaleUpPays: o.scaleUpPays?.(ordered, ctx),
      scaleUpBeyondDepth: o.scaleUpBeyondDepth?.(ordered, ctx),
      scaleUpMargin: o.scaleUpMargin?.(ordered, ctx),
    };
    const cache = new MoveCache();
    const takeTest = o.takePays?.(ordered, ctx);
    const reclaimTest = o.reclaimFaster?.pays?.(ctx);
    const pending: JobState[] = [];
    const view: TakeView = { vc, job: byId.get, cellsOf: cellsOfJob, waitingAhead: pending };
    const takes = (cells: JobCells, admit: CellConfig, taken: readonly Take[]): boolean =>
      !takeTest || taken.length === 0 || takeTest(cells, admit, taken, view);
    const suspends = (cells: JobCells, admit: CellConfig, ids: readonly string[]): boolean =>
      !takeTest || ids.length === 0 || takeTest(cells, admit, suspensions(ids, vc), view);

    const queue: JobState[] = [];
    for (let r = 0; r < ordered.length; r++) {
      const job = ordered[r]!;
      if (!isHolding(job) || sharesWithEarlier(job, rank)) {
        queue.push(job);
        continue;
      }
      const current = cellsAtRank(r).current ?? heldAsIs(job);
      if (vc.fits(current)) vc.assign(job.spec.id, current, r);
      else queue.push(job); // its type shrank (hosts lost): it competes again
    }

    const restore = o.restoreAhead ? restoreAheadOf(ordered, rank, vc, cellsOfJob, s.scaleUpPays) : undefined;
    for (let i = 0; i < queue.length; i++) {
      const job = queue[i]!;
      restore?.(rank.get(job.spec.id)!);
      const cells = cellsOfJob(job);
      if (cells.configs.length === 0) {
        pending.push(job);
        continue;
      }
      let choice: Choice | undefined = s.budget.exhausted
        ? directFit(cells, vc)
        : scaleResource(cells, s, cache);
      if (choice && choice.moves.length > 0 && !takes(cells, choice.admit, choice.moves)) {
        // Taking from running jobs does not pay: a Cell that fits as things are, else it waits.
        choice = directFit(cells, vc);
        if (!choice) {
          pending.push(job);
          continue;
        }
      }
      const available = choice?.admit;
      const victims =
        available && o.reclaimFaster && !s.budget.exhausted
          ? reclaimFaster(
              cells,
              available,
              vc,
              byId,
              rank.get(job.spec.id)!,
              s.budget,
              o.reclaimFaster,
              reclaimTest &&
                ((admit, ids) =>
                  reclaimTest(
                    cells,
                    available,
                    admit,
                    displacements(admit, ids, vc, byId, cellsOfJob),
                    view,
                  )),
            )
          : undefined;
      if (victims) {
        // Displaced jobs come later in the order: they compete again after this one, in order.
        for (const id of victims) insertByRank(queue, i + 1, byId.get(id)!, rank);
        continue;
      }
      if (choice) {
        applyChoice(choice, vc);
        continue;
      }
      const suspended =
        !o.opportunistic || s.budget.exhausted
          ? undefined
          : reclaim(job, cells, vc, byId, rank.get(job.spec.id)!, s.budget, o.deadlines, suspends);
      if (suspended) {
        // Suspended jobs come later in the order: they compete again after this one, in order.
        for (const id of suspended) insertByRank(queue, i + 1, byId.get(id)!, rank);
        continue;
      }
      pending.push(job);
    }

    if (pending.length === 0) scaleUp(s, o.minScaleUpGain, () => true);

    const demands = new Map<string, Demand>();
    vc.forEachHeld((config, jobId) => {
      demands.set(jobId, demandOf(config.gpuType, config.gpus, config.cell));
    });
    return demands;
  },

  nextState(ordered, _plan, ctx): SchedulerState {
    const observations: Observation[] = [];
    const cache = roundCells(ctx, o, o.deadlines);
    // Given the list `allocate` was given, its ranks are the active jobs and its Cells carry the records.
    const pass = ctx.scratch.get(ALLOCATE_PASS, () => new Map()).get(o);
    const found = pass?.ordered === ordered ? pass : undefined;
    const active: { has(jobId: string): boolean } = found ? found.rank : new Set(ordered.map(idOf));
    const capacity = heldCapacityKey(ctx);
    for (let i = 0; i < ordered.length; i++) {
      const job = ordered[i]!;
      if (!isHolding(job) || !(job.measuredThroughput !== undefined && job.measuredThroughput > 0)) continue;
      // The Cell it holds, as `JobCells.current` has it (its type and key do not depend on the calibration): from its
      // allocation's record (the one its Cells were made with this round), made with its Cells if not made yet.
      let record = found?.cellsAt[i]?.heldRecord;
      if (!record) {
        record = heldJob(job, ctx, o.estimator, capacity);
        if (!record.heldMade) cellsIn(cache, job, ctx, o, o.deadlines);
      }
      const held = record.held;
      if (!held) continue;
      // The raw estimate behind the calibrated rate: undo the calibration the config carries.
      const raw = heldEstimate(record, job, ctx, o.estimator, rawEstimate);
      if (!raw) continue;
      observations.push(observationOf(record, held, raw, job.measuredThroughput));
    }
    const calibration = ctx.state.cellCalibration;
    // The job ids of the calibration's records, listed once per record (most rounds keep it as it was).
    const keys =
      calibration && ctx.memo.of(calibration.cells, CELL_KEYS, () => Object.keys(calibration.cells));
    const next = observeKeyed(calibration, observations, active, keys);
    // The next round's record's ids, as observe made them (no listing of the record's keys).
    ctx.memo.of(next.state.cells, CELL_KEYS, () => next.keys);
    return schedulerStateWith(ctx.state, { cellCalibration: next.state });
  },
});

const CELL_KEYS = memoKey<readonly string[]>('crius calibrated job ids');

const idOf = (job: JobState): string => job.spec.id;

/** The job of `ordered` with this id (the last, as a map of them would hold), or undefined. */
const byRank = (
  ordered: readonly JobState[],
  rank: ReadonlyMap<string, number>,
  id: string,
): JobState | undefined => {
  const r = rank.get(id);
  return r === undefined ? undefined : ordered[r];
};

/**
 * A packed job whose partner comes earlier in the order: the pair holds one set of GPUs, which the partner's Cell
 * already counts. It competes for GPUs of its own like a waiting job (the packing stage may keep it packed when it
 * is not admitted); counting it as a holder would reserve GPUs nobody uses and admit it ahead of the order.
 */
const sharesWithEarlier = (job: JobState, rank: ReadonlyMap<string, number>): boolean => {
  const partner = job.allocation?.packedWith;
  if (partner === undefined) return false;
  const partnerRank = rank.get(partner);
  return partnerRank !== undefined && partnerRank < rank.get(job.spec.id)!;
};

/** A running job whose Cell cannot be estimated (e.g. it was started by another policy) keeps what it holds. */
const heldAsIs = (job: JobState): CellConfig => {
  const a = job.allocation!;
  const gpus = allocationGpuCount(a);
  const cell = a.cell ?? { gpuType: a.gpuType, gpus, stageGpus: [gpus] };
  return {
    gpuType: a.gpuType,
    gpus,
    cell,
    key: cellKey(a.gpuType, gpus, cell.stageGpus.length),
    rate: 0,
    value: 0,
  };
};

/** The uncalibrated estimate of the Cell a running job holds. */
const rawEstimate = (job: JobState, ctx: RoundContext, estimator: CellEstimator): number | undefined => {
  estimator.learn(job.spec);
  const a = job.allocation!;
  const gpus = allocationGpuCount(a);
  const capacity = ctx.capacity.get(a.gpuType);
  if (!capacity) return undefined;
  if (a.cell && estimator.layered(job.spec.model)) {
    const e = estimator.estimate({
      model: job.spec.model,
      batchSize: job.spec.batchSize,
      gpuType: a.gpuType,
      gpus,
      stages: a.cell.stageGpus.length,
      layout: consolidatedLayout(gpus, capacity.largestHost),
    });
    return e.feasible ? e.iterationsPerSecond : undefined;
  }
  return rawCell(job, a.gpuType, gpus, ctx, estimator)?.rate;
};

/**
 * Opportunistic execution: jobs that arrived after `job` and hold GPUs of a type it could use ran there
 * opportunistically; once suspending them (latest first) frees one of its admission Cells, they are suspended
 * and `job` starts. Picks the Cell that suspends the fewest GPUs (then the best) among those where the suspension
 * `pays` (always, without a take rule). Admitted deadline jobs are never suspended in deadline mode. Returns the
 * suspended job ids, or undefined.
 */
const reclaim = (
  job: JobState,
  cells: JobCells,
  vc: VirtualAllocation,
  byId: Pick<ReadonlyMap<string, JobState>, 'get'>,
  rank: number,
  budget: Budget,
  deadlines: boolean,
  pays: (cells: JobCells, admit: CellConfig, victims: readonly string[]) => boolean,
): string[] | undefined => {
  let best: { admit: CellConfig; victims: string[]; gpus: number } | undefined;
  for (const admit of admissionConfigs(cells)) {
    let free = vc.free(admit.gpuType);
    const chosen: string[] = [];
    let gpus = 0;
    for (const id of vc.holdersAfter(admit.gpuType, rank)) {
      if (free >= admit.gpus || !budget.spend()) break;
      const victim = byId.get(id);
      if (
        !victim ||
        (deadlines && victim.spec.deadline !== undefined) ||
        victim.spec.priority > job.spec.priority
      )
        continue;
      const held = vc.get(id)!.gpus;
      free += held;
      gpus += held;
      chosen.push(id);
    }
    if (free < admit.gpus) continue;
    if (!pays(cells, admit, chosen)) continue;
    if (!best || gpus < best.gpus || (gpus === best.gpus && admit.value > best.admit.value)) {
      best = { admit, victims: chosen, gpus };
    }
  }
  if (!best) return undefined;
  for (const id of best.victims) vc.release(id);
  vc.assign(job.spec.id, best.admit);
  return best.victims;
};

/**
 * The order stage alone decides who goes first, for growth too: a job the order puts ahead of a waiting job, running
 * below its request (admitted at half, or shrunk for an earlier admission), gets its request back on its type before
 * the waiting job is admitted, when that many GPUs are free and the scale-up pays (`scaleUpPays`). Without it
 * Crius's admission gives the free GPUs to the later job, at half its request if need be, and the job ahead grows only
 * when nobody pends: under a stream of arrivals two large gangs then share the cluster at half their requests and end
 * together, late (Pollux workload-1 on 32 A100s, two 32-GPU resnet50 jobs at 16 GPUs each for 10,000 s: JCTs 13,554
 * and 15,332 s, where one after the other the first ends at its run alone). Returns the step to call with the rank
 * of each waiting job before it is admitted; holders are restored in order, each once.
 */
const restoreAheadOf = (
  ordered: readonly JobState[],
  rank: ReadonlyMap<string, number>,
  vc: VirtualAllocation,
  cellsOf: (job: JobState) => JobCells,
  pays: SearchContext['scaleUpPays'],
): ((waitingRank: number) => void) => {
  const below: JobState[] = [];
  for (const job of ordered) {
    const held = vc.get(job.spec.id);
    if (held && held.gpus < job.spec.gpus) below.push(job);
  }
  let next = 0;
  return (waitingRank) => {
    while (next < below.length && rank.get(below[next]!.spec.id)! < waitingRank) {
      const job = below[next++]!;
      const held = vc.get(job.spec.id);
      if (!held) continue;
      const cells = cellsOf(job);
      const to = cells.configs.find((c) => c.gpuType === held.gpuType && c.gpus === job.spec.gpus);
      if (!to || to.gpus - held.gpus > vc.free(held.gpuType)) continue;
      if (pays && !pays(job.spec.id, held, to, cells)) continue;
      vc.release(job.spec.id);
      vc.assign(job.spec.id, to);
    }
  };
};

/** Holders suspended to admit a job, as takes (their Cells as held in `vc`). */
const suspensions = (ids: readonly string[], vc: VirtualAllocation): Take[] => {
  const out: Take[] = [];
  for (const id of ids) out.push({ jobId: id, from: vc.get(id)!, to: undefined });
  return out;
};

const insertByRank = (
  queue: JobState[],
  from: number,
  job: JobState,
  rank: ReadonlyMap<string, number>,
): void => {
  const r = rank.get(job.spec.id)!;
  let i = from;
  while (i < queue.length && rank.get(queue[i]!.spec.id)! <= r) i++;
  queue.splice(i, 0, job);
};

const noCellReason = (job: JobState, ctx: RoundContext, o: CriusAllocateOptions): string => {
  const counts = countsFor(job.spec.gpus, o.countScaling).join('/');
  const types = allowedTypes(job.spec, ctx).join(', ');
  return `no Cell of ${job.spec.model} (batch ${job.spec.batchSize}) fits on ${counts} GPUs of ${types || 'any type'}`;
};
