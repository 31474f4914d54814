import type { GpuTypeId } from '../../model/gpu.ts';
import type { CellConfig } from './job-cells.ts';

/** One GPU type in the virtual allocation: free GPUs, holders (in arrival order and by rank), a change counter. */
interface TypeSlot {
  free: number;
  readonly jobs: Set<string>;
  /** Holders by arrival rank, ascending (for opportunistic execution's "who came later"): ranks and ids alike. */
  readonly ranks: number[];
  readonly rankedIds: string[];
  version: number;
}

const NO_JOBS: ReadonlySet<string> = new Set();

/**
 * Crius's virtual allocation (Algorithm 1, VirtualAlloc): who holds which Cell after the choices made so far this
 * round, and the free GPUs per type. Nothing is real until the round's demands are returned (FinalizeAlloc).
 */
export class VirtualAllocation {
  // Everything about a type in one entry: a job's assignment looks its type up once.
  private readonly types = new Map<GpuTypeId, TypeSlot>();
  private readonly held = new Map<string, CellConfig>();

  constructor(
    capacity: ReadonlyMap<GpuTypeId, number>,
    /** Arrival rank of a job (smaller = earlier); default: all equal. */
    private readonly rank: (jobId: string) => number = () => 0,
  ) {
    for (const [type, gpus] of capacity) this.slot(type).free = gpus;
  }

  /** Jobs holding `type` whose rank is above `after`, latest first. */
  *holdersAfter(type: GpuTypeId, after: number): Generator<string> {
    const slot = this.types.get(type);
    if (!slot) return;
    const { ranks, rankedIds } = slot;
    for (let i = ranks.length - 1; i >= 0 && ranks[i]! > after; i--) yield rankedIds[i]!;
  }

  free(type: GpuTypeId): number {
    return this.types.get(type)?.free ?? 0;
  }

  get(jobId: string): CellConfig | undefined {
    return this.held.get(jobId);
  }

  jobsOn(type: GpuTypeId): ReadonlySet<string> {
    return this.types.get(type)?.jobs ?? NO_JOBS;
  }

  entries(): IterableIterator<[string, CellConfig]> {
    return this.held.entries();
  }

  /** Each holder and its Cell, in the order of `entries` (no entry object per holder). */
  forEachHeld(visit: (config: CellConfig, jobId: string) => void): void {
    this.held.forEach(visit);
  }

  get size(): number {
    return this.held.size;
  }

  /** Changes whenever a job arrives on or leaves `type`: lets searches cache per-type candidates. */
  version(type: GpuTypeId): number {
    return this.types.get(type)?.version ?? 0;
  }

  fits(config: CellConfig): boolean {
    return this.free(config.gpuType) >= config.gpus;
  }

  /**
   * Gives `jobId` the Cell `config` (replacing what it held); throws when the GPUs are not free. `rank`: the job's
   * rank, when the caller knows it.
   */
  assign(jobId: string, config: CellConfig, rank: number = this.rank(jobId)): void {
    this.release(jobId);
    const slot = this.slot(config.gpuType);
    if (slot.free < config.gpus) {
      throw new Error(
        `virtual allocation: ${jobId} needs ${config.gpus} × ${config.gpuType}, ${slot.free} free`,
      );
    }
    slot.free -= config.gpus;
    this.held.set(jobId, config);
    slot.jobs.add(jobId);
    const { ranks, rankedIds } = slot;
    let at = ranks.length;
    while (at > 0 && ranks[at - 1]! > rank) at--;
    // Holders are mostly assigned in rank order: then the new one goes last.
    if (at === ranks.length) {
      ranks.push(rank);
      rankedIds.push(jobId);
    } else {
      ranks.splice(at, 0, rank);
      rankedIds.splice(at, 0, jobId);
    }
    slot.version++;
  }

  release(jobId: string): void {
    const previous = this.held.get(jobId);
    if (!previous) return;
    this.held.delete(jobId);
    const slot = this.slot(previous.gpuType);
    slot.free += previous.gpus;
    slot.jobs.delete(jobId);
    const at = slot.rankedIds.indexOf(jobId);
    if (at >= 0) {
      slot.ranks.splice(at, 1);
      slot.rankedIds.splice(at, 1);
    }
    slot.version++;
  }

  /** Σ value of every held Cell: the objective (normalised cluster throughput). */
  objective(): number {
    let sum = 0;
    for (const c of this.held.values()) sum += c.value;
    return sum;
  }

  private slot(type: GpuTypeId): TypeSlot {
    let slot = this.types.get(type);
    if (!slot) {
      slot = { free: 0, jobs: new Set(), ranks: [], rankedIds: [], version: 0 };
      this.types.set(type, slot);
    }
    return slot;
  }
}
