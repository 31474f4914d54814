import type { GpuTypeId } from '../../model/gpu.ts';
import type { CellConfig } from './job-cells.ts';

/**
 * Crius's virtual allocation (Algorithm 1, VirtualAlloc): who holds which Cell after the choices made so far this
 * round, and the free GPUs per type. Nothing is real until the round's demands are returned (FinalizeAlloc).
 */
export class VirtualAllocation {
  private readonly freeGpus = new Map<GpuTypeId, number>();
  private readonly held = new Map<string, CellConfig>();
  private readonly byType = new Map<GpuTypeId, Set<string>>();
  private readonly versions = new Map<GpuTypeId, number>();
  /** Holders of each type by arrival rank, ascending (for opportunistic execution's "who came later"). */
  private readonly byRank = new Map<GpuTypeId, { rank: number; jobId: string }[]>();

  constructor(
    capacity: ReadonlyMap<GpuTypeId, number>,
    /** Arrival rank of a job (smaller = earlier); default: all equal. */
    private readonly rank: (jobId: string) => number = () => 0,
  ) {
    for (const [type, gpus] of capacity) this.freeGpus.set(type, gpus);
  }

  /** Jobs holding `type` whose rank is above `after`, latest first. */
  *holdersAfter(type: GpuTypeId, after: number): Generator<string> {
    const list = this.byRank.get(type) ?? [];
    for (let i = list.length - 1; i >= 0 && list[i]!.rank > after; i--) yield list[i]!.jobId;
  }

  free(type: GpuTypeId): number {
    return this.freeGpus.get(type) ?? 0;
  }

  get(jobId: string): CellConfig | undefined {
    return this.held.get(jobId);
  }

  jobsOn(type: GpuTypeId): ReadonlySet<string> {
    return this.byType.get(type) ?? new Set();
  }

  entries(): IterableIterator<[string, CellConfig]> {
    return this.held.entries();
  }

  get size(): number {
    return this.held.size;
  }

  /** Changes whenever a job arrives on or leaves `type`: lets searches cache per-type candidates. */
  version(type: GpuTypeId): number {
    return this.versions.get(type) ?? 0;
  }

  fits(config: CellConfig): boolean {
    return this.free(config.gpuType) >= config.gpus;
  }

  /** Gives `jobId` the Cell `config` (replacing what it held); throws when the GPUs are not free. */
  assign(jobId: string, config: CellConfig): void {
    this.release(jobId);
    if (!this.fits(config)) {
      throw new Error(
        `virtual allocation: ${jobId} needs ${config.gpus} × ${config.gpuType}, ${this.free(config.gpuType)} free`,
      );
    }
    this.freeGpus.set(config.gpuType, this.free(config.gpuType) - config.gpus);
    this.held.set(jobId, config);
    let set = this.byType.get(config.gpuType);
    if (!set) {
      set = new Set();
      this.byType.set(config.gpuType, set);
    }
    set.add(jobId);
    let ranked = this.byRank.get(config.gpuType);
    if (!ranked) {
      ranked = [];
      this.byRank.set(config.gpuType, ranked);
    }
    const r = this.rank(jobId);
    let at = ranked.length;
    while (at > 0 && ranked[at - 1]!.rank > r) at--;
    ranked.splice(at, 0, { rank: r, jobId });
    this.bump(config.gpuType);
  }

  release(jobId: string): void {
    const previous = this.held.get(jobId);
    if (!previous) return;
    this.held.delete(jobId);
    this.freeGpus.set(previous.gpuType, this.free(previous.gpuType) + previous.gpus);
    this.byType.get(previous.gpuType)?.delete(jobId);
    const ranked = this.byRank.get(previous.gpuType);
    const at = ranked?.findIndex((e) => e.jobId === jobId) ?? -1;
    if (ranked && at >= 0) ranked.splice(at, 1);
    this.bump(previous.gpuType);
  }

  /** Σ value of every held Cell: the objective (normalised cluster throughput). */
  objective(): number {
    let sum = 0;
    for (const c of this.held.values()) sum += c.value;
    return sum;
  }

  private bump(type: GpuTypeId): void {
    this.versions.set(type, this.version(type) + 1);
  }
}
