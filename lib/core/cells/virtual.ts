import type { GpuTypeId } from '../model/gpu.ts';
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

  constructor(capacity: ReadonlyMap<GpuTypeId, number>) {
    for (const [type, gpus] of capacity) this.freeGpus.set(type, gpus);
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
      throw new Error(`virtual allocation: ${jobId} needs ${config.gpus} × ${config.gpuType}, ${this.free(config.gpuType)} free`);
    }
    this.freeGpus.set(config.gpuType, this.free(config.gpuType) - config.gpus);
    this.held.set(jobId, config);
    let set = this.byType.get(config.gpuType);
    if (!set) {
      set = new Set();
      this.byType.set(config.gpuType, set);
    }
    set.add(jobId);
    this.bump(config.gpuType);
  }

  release(jobId: string): void {
    const previous = this.held.get(jobId);
    if (!previous) return;
    this.held.delete(jobId);
    this.freeGpus.set(previous.gpuType, this.free(previous.gpuType) + previous.gpus);
    this.byType.get(previous.gpuType)?.delete(jobId);
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
