import type { GpuTypeId } from '../../model/gpu.ts';
import type { CellConfig, JobCells } from './job-cells.ts';
import { type MovePositions, openPositions, positionsByTarget } from './move-positions.ts';
import type { VirtualAllocation } from './virtual.ts';

/**
 * Cell-based scheduling choices (Crius Algorithm 1: ScaleResource + BestPerf). A choice admits the target job
 * with one of its Cells, after at most `depth` scaling moves of other jobs (a smaller count on the same type, or
 * any Cell on another type with room), such that every type stays within its capacity; the best choice has the
 * largest Σ normalised throughput. The search is bounded by the depth and by a budget of evaluated choices
 * (the core's stand-in for a wall-time budget: it has no clock).
 */

export class Budget {
  private spent = 0;
  constructor(readonly limit: number) {}

  /** Counts `n` evaluations; false once the budget is used up. */
  spend(n = 1): boolean {
    this.spent += n;
    return this.spent <= this.limit;
  }

  /**
   * `n` evaluations counted one at a time, stopping at the first over the budget (false then), as a loop of `spend()`
   * that breaks on false would: the search skips looks it knows the answer to without changing what it spends.
   */
  spendEach(n: number): boolean {
    if (this.spent + n <= this.limit) {
      this.spent += n;
      return true;
    }
    this.spent = Math.max(this.spent + 1, this.limit + 1);
    return false;
  }

  get exhausted(): boolean {
    return this.spent >= this.limit;
  }

  get used(): number {
    return this.spent;
  }
}

/** One scaling move: `jobId` leaves `from` for `to`. */
export interface Move {
  readonly jobId: string;
  readonly from: CellConfig;
  readonly to: CellConfig;
  /** GPUs of `from.gpuType` the move frees. */
  readonly freed: number;
  /** Objective lost (never negative here: moves that help the moved job are the scale-up pass's business). */
  readonly loss: number;
}

export interface Choice {
  readonly jobId: string;
  readonly admit: CellConfig;
  readonly moves: readonly Move[];
  /** Change of the objective: the admitted Cell's value minus the moves' losses. */
  readonly gain: number;
}

export interface SearchContext {
  readonly vc: VirtualAllocation;
  readonly budget: Budget;
  readonly depth: number;
  /** Candidate moves per GPU type kept for the combination search. */
  readonly breadth: number;
  /** The Cells of a job holding GPUs (lazily computed by the caller). */
  readonly cellsOf: (jobId: string) => JobCells | undefined;
  /** Whether scaling a running job up from `from` to `to` pays (all above `minGain` when absent; tessera's rule). */
  readonly scaleUpPays?: (jobId: string, from: CellConfig, to: CellConfig, cells: JobCells) => boolean;
  /** Whether scaling this job up is left out of `depth`'s count (none when absent; tessera: jobs not started yet). */
  readonly scaleUpBeyondDepth?: (jobId: string) => boolean;
  /** The gain margin for scaling this job up (`minGain` when absent; tessera: below it for jobs not started yet). */
  readonly scaleUpMargin?: (jobId: string) => number;
}

interface Candidates {
  /** Every move, in the order made: holders as `jobsOn` lists them, each one's moves to other types, then its best within. */
  readonly moves: readonly Move[];
  /** Per type a move goes to, the indices of those moves in `moves`, ascending. */
  readonly byTarget: ReadonlyMap<GpuTypeId, readonly number[]>;
  /** Per move, its job as an index into `ids` (the holders with moves, in the order made). */
  readonly jobAt: readonly number[];
  readonly ids: readonly string[];
  /** Some move's loss (or freed count) is NaN: the comparators' orders are then not the keys' (`sortedMoves`), so always sorted. */
  readonly nanLoss: boolean;
  /** Upper bound on the GPUs `depth` moves can free. */
  readonly bound: number;
  /** The two orders, made on the first `release` that reads them (`sortedOf`). */
  sorted?: SortedCandidates;
}

interface SortedCandidates {
  /** Cheapest loss per freed GPU first. */
  readonly byEfficiency: readonly Move[];
  /** Most GPUs freed first. */
  readonly byFreed: readonly Move[];
  /** Per type a move goes to, its positions in `byEfficiency` and in `byFreed`, ascending (`move-positions.ts`). */
  readonly efficiencyAt: MovePositions;
  readonly freedAt: MovePositions;
}

const sortedOf = (c: Candidates): SortedCandidates => {
  if (!c.sorted) {
    const { byEfficiency, byFreed } = sortedMoves(c.moves, c.jobAt, c.ids);
    c.sorted = {
      byEfficiency,
      byFreed,
      efficiencyAt: positionsByTarget(byEfficiency),
      freedAt: positionsByTarget(byFreed),
    };
  }
  return c.sorted;
};

/** Per-type cache of candidate moves, valid while the jobs on that type do not change. */
export class MoveCache {
  private readonly entries = new Map<GpuTypeId, Candidates & { version: number }>();

  /** `sortAlways`: every `release` reads the sorted lists (tests compare it with the few-feasible path). */
  constructor(readonly sortAlways = false) {}

  get(type: GpuTypeId, s: SearchContext): Candidates {
    const version = s.vc.version(type);
    const hit = this.entries.get(type);
    if (hit && hit.version === version) return hit;
    const entry = { version, ...candidateMoves(type, s) };
    this.entries.set(type, entry);
    return entry;
  }
}

/** Every job on `type` with its cheapest way to free GPUs there (and its moves to other types). */
const candidateMoves = (type: GpuTypeId, s: SearchContext): Candidates => {
  const moves: Move[] = [];
  const most: number[] = [];
  const jobAt: number[] = [];
  const ids: string[] = [];
  const byTarget = new Map<GpuTypeId, number[]>();
  let nanLoss = false;
  const add = (move: Move): void => {
    let at = byTarget.get(move.to.gpuType);
    if (!at) {
      at = [];
      byTarget.set(move.to.gpuType, at);
    }
    at.push(moves.length);
    moves.push(move);
    jobAt.push(ids.length);
    if (Number.isNaN(move.loss) || Number.isNaN(move.freed)) nanLoss = true;
  };
  let work = 0;
  for (const jobId of s.vc.jobsOn(type)) {
    const from = s.vc.get(jobId);
    const cells = s.cellsOf(jobId);
    if (!from || !cells) continue;
    let maxFreed = 0;
    let bestDown: Move | undefined;
    // Holding its Cell, a job's list is its shape's shared one but for the entry of its held type and count, which
    // frees nothing: the shared list gives the same moves in the same order without making the job's own.
    const shared = from === cells.current ? cells.shared : undefined;
    const before = moves.length;
    for (const to of shared ? shared.configs : cells.configs) {
      work++;
      if (shared && to.gpuType === from.gpuType && to.gpus === from.gpus) continue;
      const freed = to.gpuType === type ? from.gpus - to.gpus : from.gpus;
      if (freed <= 0) continue;
      maxFreed = Math.max(maxFreed, freed);
      const move: Move = { jobId, from, to, freed, loss: Math.max(0, from.value - to.value) };
      if (to.gpuType !== type) add(move);
      else if (!bestDown || move.loss / move.freed < bestDown.loss / bestDown.freed) bestDown = move;
    }
    if (bestDown) add(bestDown);
    if (moves.length > before) ids.push(jobId);
    if (maxFreed > 0) most.push(maxFreed);
  }
  s.budget.spend(work);
  most.sort((a, b) => b - a);
  return {
    moves,
    byTarget,
    jobAt,
    ids,
    nanLoss,
    bound: most.slice(0, s.depth).reduce((x, y) => x + y, 0),
  };
};

/**
 * The moves `release`'s two scans would put in its pool when fewer than `breadth` of them are feasible, in the pool's
 * order, or undefined (then the scans run on the sorted lists). Both scans look at the moves that may fit (within
 * `type`, or to a type with free GPUs) in their list's order and spend the looks in between (`take`): the first takes
 * every feasible move (fewer than it may take), in `byEfficiency` order, and spends the whole list; the second finds
 * no feasible move outside the pool (nothing changed in between) and spends the whole list again — as long as the
 * budget has room for both, which is checked. So the pool is the feasible moves in `byEfficiency`'s order (the keys'
 * order, ties by the job id and then the order made: `sortedMoves`), found without sorting every move: on a full
 * cluster nearly every move goes to a full type (shockwave:300:80@aws-mixed: 2.6 feasible of ~144 per call, fewer than
 * `breadth` in 97 % of the calls).
 */
const fewFeasible = (c: Candidates, type: GpuTypeId, s: SearchContext): Move[] | undefined => {
  if (c.nanLoss || s.breadth < 1 || s.depth < 1) return undefined;
  if (s.budget.used + 2 * c.moves.length > s.budget.limit) return undefined;
  const feasible: number[] = [];
  for (const [to, at] of c.byTarget) {
    if (to === type) {
      if (feasible.length + at.length >= s.breadth) return undefined;
      for (const i of at) feasible.push(i);
      continue;
    }
    const free = s.vc.free(to);
    if (free <= 0) continue;
    for (const i of at) {
      if (c.moves[i]!.to.gpus > free) continue;
      if (feasible.length + 1 >= s.breadth) return undefined;
      feasible.push(i);
    }
  }
  const { moves, jobAt, ids } = c;
  feasible.sort((i, j) => {
    const a = moves[i]!;
    const b = moves[j]!;
    const x = a.loss / a.freed;
    const y = b.loss / b.freed;
    if (x !== y) return x < y ? -1 : 1;
    if (a.freed !== b.freed) return b.freed - a.freed;
    const p = ids[jobAt[i]!]!;
    const q = ids[jobAt[j]!]!;
    if (p !== q) return p < q ? -1 : 1;
    return i - j;
  });
  s.budget.spend(2 * moves.length);
  return feasible.map((i) => moves[i]!);
};

/**
 * The candidate moves in the search's two orders: cheapest loss per freed GPU first (then most freed), and most freed
 * first (then least loss); of equal keys, the job whose id comes first, then the order made. `jobAt[i]` is move i's
 * job as an index into `ids` (distinct). The very permutations `Array.prototype.sort` gives with the comparators
 *   (a, b) => a.loss / a.freed - b.loss / b.freed || b.freed - a.freed || (a.jobId < b.jobId ? -1 : 1)
 *   (a, b) => b.freed - a.freed || a.loss - b.loss || (a.jobId < b.jobId ? -1 : 1)
 * (`sortedMovesByComparator`): the sort is stable and reads only whether a comparison is negative, so the 1 these give
 * for two moves of one job acts as a tie, and the result is the moves ordered by their keys, ties in the order made —
 * which a merge sort of the moves' indices by keys computed once per move gives without a call per comparison.
 * A type's list is made again in every round (its holders' values move with the calibration), and the two comparator
 * sorts were ~70 % of `candidateMoves` and ~25 % of tessera's round on shockwave:300:80@aws-mixed. A NaN key (which
 * the comparators treat as equal to everything) falls back to the comparator sorts.
 */
export const sortedMoves = (
  moves: readonly Move[],
  jobAt: readonly number[],
  ids: readonly string[],
): { byEfficiency: Move[]; byFreed: Move[] } => {
  const n = moves.length;
  // Each job's rank among the ids by `<` (as the comparators compare them).
  const idOrder = ids.map((_, i) => i).sort((i, j) => (ids[i]! < ids[j]! ? -1 : 1));
  const idRank: number[] = new Array(ids.length);
  for (let r = 0; r < idOrder.length; r++) idRank[idOrder[r]!] = r;
  const perFreed: number[] = new Array(n);
  const lessFreed: number[] = new Array(n);
  const loss: number[] = new Array(n);
  const rank: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const m = moves[i]!;
    perFreed[i] = m.loss / m.freed;
    lessFreed[i] = -m.freed;
    loss[i] = m.loss;
    rank[i] = idRank[jobAt[i]!]!;
    if (Number.isNaN(perFreed[i]!) || Number.isNaN(loss[i]!) || Number.isNaN(lessFreed[i]!))
      return sortedMovesByComparator(moves);
  }
  return {
    byEfficiency: pick(moves, orderByKeys(perFreed, lessFreed, rank)),
    byFreed: pick(moves, orderByKeys(lessFreed, loss, rank)),
  };
};

/** The two orders as the comparator sorts give them (the reference `sortedMoves` equals; its NaN fallback). */
export const sortedMovesByComparator = (
  moves: readonly Move[],
): { byEfficiency: Move[]; byFreed: Move[] } => ({
  byEfficiency: [...moves].sort(
    (a, b) => a.loss / a.freed - b.loss / b.freed || b.freed - a.freed || (a.jobId < b.jobId ? -1 : 1),
  ),
  byFreed: [...moves].sort((a, b) => b.freed - a.freed || a.loss - b.loss || (a.jobId < b.jobId ? -1 : 1)),
});

const pick = (moves: readonly Move[], at: readonly number[]): Move[] => {
  const out: Move[] = new Array(at.length);
  for (let i = 0; i < at.length; i++) out[i] = moves[at[i]!]!;
  return out;
};

/**
 * Indices 0…n−1 ordered by (k1, k2, k3) ascending, ties by index: insertion sorts of runs of 8, then bottom-up stable
 * merges. Plain arrays, not typed ones (a typed array past 64 bytes costs a backing store). No NaN keys, and −0 does
 * not occur: `===` ties where the comparators' difference is 0, and ∞ = ∞ where theirs is NaN, also a tie.
 */
const orderByKeys = (k1: readonly number[], k2: readonly number[], k3: readonly number[]): number[] => {
  const n = k1.length;
  let a: number[] = new Array(n);
  for (let i = 0; i < n; i++) a[i] = i;
  // y strictly before x.
  const before = (y: number, x: number): boolean =>
    k1[y]! < k1[x]! || (k1[y] === k1[x] && (k2[y]! < k2[x]! || (k2[y] === k2[x] && k3[y]! < k3[x]!)));
  const RUN = 8;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const y = a[i]!;
      let j = i;
      while (j > lo && before(y, a[j - 1]!)) {
        a[j] = a[j - 1]!;
        j--;
      }
      a[j] = y;
    }
  }
  if (n <= RUN) return a;
  let b: number[] = new Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) {
        // The left run wins ties (stable).
        if (before(a[j]!, a[i]!)) b[o++] = a[j++]!;
        else b[o++] = a[i++]!;
      }
      while (i < mid) b[o++] = a[i++]!;
      while (j < hi) b[o++] = a[j++]!;
    }
    const t = a;
    a = b;
    b = t;
  }
  return a;
};

/**
 * The cheapest set of at most `depth` moves (distinct jobs) freeing `need` GPUs of `type`, with moves to other
 * types fitting their free GPUs; undefined when none exists or costs `maxLoss` or more.
 */
export const release = (
  type: GpuTypeId,
  need: number,
  maxLoss: number,
  s: SearchContext,
  cache: MoveCache,
): { moves: Move[]; loss: number } | undefined => {
  const candidates = cache.get(type, s);
  if (candidates.bound < need) return undefined;
  const search = new ReleaseSearch(type, need, maxLoss, s);
  const few = cache.sortAlways ? undefined : fewFeasible(candidates, type, s);
  if (few) search.pool.push(...few);
  else {
    // The `breadth` most efficient feasible moves, plus the `depth` that free the most (for large needs).
    const sorted = sortedOf(candidates);
    search.take(sorted.byEfficiency, sorted.efficiencyAt, s.breadth);
    search.take(sorted.byFreed, sorted.freedAt, s.depth);
  }
  search.visit(0, 0, 0);
  return search.best;
};

/** Whether a move fits: on its own type, or into the free GPUs of the type it goes to. */
const feasibleMove = (m: Move, type: GpuTypeId, vc: VirtualAllocation): boolean =>
  m.to.gpuType === type || vc.free(m.to.gpuType) >= m.to.gpus;

/**
 * One `release` call's pool and branch-and-bound state. An object with methods rather than closures per call:
 * `release` runs thousands of times a simulation, and tsx (esbuild keepNames) makes every closure a property
 * definition, and V8 compiles each closure's code anew once the policies before tessera have run it.
 */
class ReleaseSearch {
  readonly pool: Move[];
  private readonly inPool: Set<Move>;
  best: { moves: Move[]; loss: number } | undefined;
  private bestLoss: number;
  private readonly chosen: Move[];
  private readonly jobs: Set<string>;
  private readonly consumed: Map<GpuTypeId, number>;
  private readonly type: GpuTypeId;
  private readonly need: number;
  private readonly s: SearchContext;

  constructor(type: GpuTypeId, need: number, maxLoss: number, s: SearchContext) {
    this.pool = [];
    this.inPool = new Set<Move>();
    this.best = undefined;
    this.bestLoss = maxLoss;
    this.chosen = [];
    this.jobs = new Set<string>();
    this.consumed = new Map<GpuTypeId, number>();
    this.type = type;
    this.need = need;
    this.s = s;
  }

  /**
   * Adds the first `count` feasible moves of `list` not yet in the pool (each look spends budget). Moves to a type
   * with no free GPU cannot fit: only the positions of moves within the type and to types with free GPUs are looked
   * at, and the looks in between are spent as the scan of every move spent them (`spendEach`). On a full cluster
   * nearly every move goes to a full type, and the scan of each list was most of Crius's search.
   */
  take(list: readonly Move[], at: MovePositions, count: number): void {
    const { budget, vc } = this.s;
    let taken = 0;
    let next = 0;
    for (const p of openPositions(at, this.type, vc)) {
      if (taken >= count) return;
      if (!budget.spendEach(p - next + 1)) return;
      next = p + 1;
      const m = list[p]!;
      if (this.inPool.has(m) || !feasibleMove(m, this.type, vc)) continue;
      this.pool.push(m);
      this.inPool.add(m);
      taken++;
    }
    if (taken < count && next < list.length) budget.spendEach(list.length - next);
  }

  /** Depth-first over pool moves from `start`, keeping the cheapest set that frees `need`. */
  visit(start: number, freed: number, loss: number): void {
    if (freed >= this.need) {
      if (loss < this.bestLoss) {
        this.bestLoss = loss;
        this.best = { moves: [...this.chosen], loss };
      }
      return;
    }
    const { pool, jobs, consumed, s } = this;
    if (this.chosen.length >= s.depth) return;
    for (let i = start; i < pool.length; i++) {
      const m = pool[i]!;
      if (jobs.has(m.jobId) || loss + m.loss >= this.bestLoss) continue;
      const other = m.to.gpuType !== this.type ? m.to.gpuType : undefined;
      if (other && (consumed.get(other) ?? 0) + m.to.gpus > s.vc.free(other)) continue;
      if (!s.budget.spend()) return;
      this.chosen.push(m);
      jobs.add(m.jobId);
      if (other) consumed.set(other, (consumed.get(other) ?? 0) + m.to.gpus);
      this.visit(i + 1, freed + m.freed, loss + m.loss);
      if (other) consumed.set(other, consumed.get(other)! - m.to.gpus);
      jobs.delete(m.jobId);
      this.chosen.pop();
    }
  }
}

/**
 * Cells a waiting job may be admitted with: counts up to its request (N/2 or N); 2N only on a type where
 * nothing smaller fits in memory. Larger Cells come from the scale-up pass once nobody waits.
 */
export const admissionConfigs = (cells: JobCells): CellConfig[] => {
  const requested = cells.job.spec.gpus;
  const smallFits = new Set(cells.configs.filter((c) => c.gpus <= requested).map((c) => c.gpuType));
  return cells.configs.filter((c) => c.gpus <= requested || !smallFits.has(c.gpuType));
};

/** CellBasedSched(job): the best choice admitting `cells.job`, or undefined (the job pends). */
export const scaleResource = (cells: JobCells, s: SearchContext, cache: MoveCache): Choice | undefined => {
  const jobId = cells.job.spec.id;
  let best: Choice | undefined;
  for (const admit of admissionConfigs(cells)) {
    if (best && admit.value <= best.gain) break;
    if (!s.budget.spend()) break;
    const need = admit.gpus - s.vc.free(admit.gpuType);
    if (need <= 0) {
      if (!best || admit.value > best.gain) best = { jobId, admit, moves: [], gain: admit.value };
      continue;
    }
    if (s.depth < 1) continue;
    const freed = release(
      admit.gpuType,
      need,
      best ? admit.value - best.gain : Number.POSITIVE_INFINITY,
      s,
      cache,
    );
    if (freed) {
      const gain = admit.value - freed.loss;
      if (!best || gain > best.gain) best = { jobId, admit, moves: freed.moves, gain };
    }
  }
  return best;
};

/** Only direct fits, no moves: what a job gets once the round's budget is spent. */
export const directFit = (cells: JobCells, vc: VirtualAllocation): Choice | undefined => {
  for (const admit of admissionConfigs(cells)) {
    if (vc.fits(admit)) return { jobId: cells.job.spec.id, admit, moves: [], gain: admit.value };
  }
  return undefined;
};

/** VirtualAlloc: applies a choice's moves, then the admission. */
export const applyChoice = (choice: Choice, vc: VirtualAllocation): void => {
  // Moves within a type first free GPUs; moves to other types take free GPUs there.
  for (const m of choice.moves) vc.release(m.jobId);
  for (const m of choice.moves) vc.assign(m.jobId, m.to);
  vc.assign(choice.jobId, choice.admit);
};

/**
 * CellBasedSched() without a target: give idle GPUs to running jobs, at most `depth` moves (not counting those of jobs
 * `scaleUpBeyondDepth` names), each a larger count
 * or a faster type with room that raises the job's throughput by at least `minGain` (a restart has a price).
 * `eligible` must answer the same for a job throughout the pass.
 */
export const scaleUp = (s: SearchContext, minGain: number, eligible: (jobId: string) => boolean): Move[] => {
  const done: Move[] = [];
  // The first scan visits every holder and keeps those that may move; later scans visit only those (`ScanOnly`).
  let kept: ScanOnly | undefined;
  let counted = 0;
  while (counted < s.depth && !s.budget.exhausted) {
    let best: Move | undefined;
    if (!kept) {
      kept = { ids: [], spend: 0 };
      best = bestScaleUp(s, minGain, eligible, done, kept);
    } else best = bestAmongKept(s, minGain, done, kept);
    if (!best) break;
    s.vc.assign(best.jobId, best.to);
    done.push(best);
    if (!s.scaleUpBeyondDepth?.(best.jobId)) counted++;
  }
  return done;
};

/**
 * What the first scan of a round found about the holders no later scan can move: a holding job whose shape's best
 * Cell gains too little over the Cell it holds stays so for the whole pass (a scan moves one job, which later scans
 * skip; no other job's Cell, Cells or values change). Later scans visit the others (`ids`, in the virtual
 * allocation's order, which the moved job leaves only to the end) and spend for the skipped ones what a scan spends
 * on them (`spend`: their Cells' count, budget spent adds up whatever the order).
 */
interface ScanOnly {
  readonly ids: string[];
  spend: number;
}

/** The scale-up move that gains most among the holders not moved yet (one pass over them, no object per holder). */
const bestScaleUp = (
  s: SearchContext,
  minGain: number,
  eligible: (jobId: string) => boolean,
  done: readonly Move[],
  kept: ScanOnly,
): Move | undefined => {
  const scan: Scan = { best: undefined, bestGain: 0 };
  s.vc.forEachHeld((from, jobId) => {
    if (!eligible(jobId) || movedAlready(done, jobId)) return;
    const cells = s.cellsOf(jobId);
    if (!cells) return;
    if (visitHolder(s, minGain, scan, jobId, from, cells)) kept.ids.push(jobId);
    else kept.spend += spentOn(from, cells);
  });
  return scan.best;
};

/** `bestScaleUp` after the first scan: the kept holders only, and the budget the others spend. */
const bestAmongKept = (
  s: SearchContext,
  minGain: number,
  done: readonly Move[],
  kept: ScanOnly,
): Move | undefined => {
  s.budget.spend(kept.spend);
  const scan: Scan = { best: undefined, bestGain: 0 };
  for (const jobId of kept.ids) {
    if (movedAlready(done, jobId)) continue;
    visitHolder(s, minGain, scan, jobId, s.vc.get(jobId)!, s.cellsOf(jobId)!);
  }
  return scan.best;
};

interface Scan {
  best: Move | undefined;
  bestGain: number;
}

/** What a scan spends on a holder: its shape's Cells' count when it reads the shared view, else its own list's. */
const spentOn = (from: CellConfig, cells: JobCells): number => {
  const shared = from === cells.current ? cells.shared : undefined;
  return shared ? shared.size : cells.configs.length;
};

/**
 * One holder's best scale-up into `scan`, if it gains more than the scan's best so far. False when no scan of this
 * pass can move it: its shape's best Cell gains too little over the Cell it holds.
 */
const visitHolder = (
  s: SearchContext,
  minGain: number,
  scan: Scan,
  jobId: string,
  from: CellConfig,
  cells: JobCells,
): boolean => {
  // Holding its Cell, a job's list is its shape's shared one less the entry of its held type and count: when even
  // the best of those gains too little (the usual case), neither list is made. What it spends is `spentOn`'s, which
  // later scans charge for the holders they skip: one rule for both.
  const shared = from === cells.current ? cells.shared : undefined;
  s.budget.spend(spentOn(from, cells));
  if (s.scaleUpMargin) minGain = s.scaleUpMargin(jobId);
  if (shared) {
    const most = shared.best - from.value;
    if (most <= minGain * from.value) return false;
    if (most <= scan.bestGain) return true;
  }
  for (const to of shared ? shared.configs : cells.configs) {
    const gain = to.value - from.value;
    // Best value first: no later Cell gains more.
    if (gain <= minGain * from.value || gain <= scan.bestGain) break;
    if (shared && to.gpuType === from.gpuType && to.gpus === from.gpus) continue;
    if (s.scaleUpPays && !s.scaleUpPays(jobId, from, to, cells)) continue;
    const extra = to.gpuType === from.gpuType ? to.gpus - from.gpus : to.gpus;
    if (extra > s.vc.free(to.gpuType)) continue;
    scan.best = { jobId, from, to, freed: 0, loss: -gain };
    scan.bestGain = gain;
  }
  return true;
};

const movedAlready = (done: readonly Move[], jobId: string): boolean => {
  for (const m of done) if (m.jobId === jobId) return true;
  return false;
};
