import type { ColocationEstimate } from '../model/perf.ts';
import type { BloxIndex, PairJob } from './blox.ts';
import type { GavelIndex } from './gavel.ts';
import { GAVEL_WORKER_TYPES } from './sources.ts';

/** Gavel worker types in the order their pairs are borrowed for other GPU types: the newest first. */
const GAVEL_TRANSFER_ORDER = [
  GAVEL_WORKER_TYPES.v100,
  GAVEL_WORKER_TYPES.p100,
  GAVEL_WORKER_TYPES.k80,
].filter((t): t is string => t !== undefined);

/**
 * Co-location answers from measured pairs (Gavel, Blox). `exact` answers only from a measurement of this very
 * GPU type and GPU count (`measured`); `transferred` borrows a pair measured elsewhere — another GPU type, or
 * Gavel's single-GPU pair for a multi-GPU job — on the grounds that normalised speeds travel better than a
 * guess (`estimated`). Operands carry catalog ids and global batch sizes.
 */
export class MeasuredColocation {
  constructor(
    private readonly gavel: GavelIndex | undefined,
    private readonly blox: BloxIndex | undefined,
  ) {}

  exact(gpuType: string, gpus: number, a: PairJob, b: PairJob): ColocationEstimate | undefined {
    const gavel = this.gavelPair(gpuType, gpus, gpus, a, b, true);
    if (gavel) return { normalized: gavel, source: 'measured' };
    if (this.blox && gpuType === this.blox.gpuType) {
      const pair = this.blox.pair(a, b, gpus);
      if (pair) return { ...pair, source: 'measured' };
    }
    return undefined;
  }

  transferred(gpuType: string, gpus: number, a: PairJob, b: PairJob): ColocationEstimate | undefined {
    const blox = this.blox?.pair(a, b, gpus);
    if (blox && blox.normalized[0] > 0) return { ...blox, source: 'estimated' };
    for (const scale of gpus > 1 ? [gpus, 1] : [1]) {
      for (const type of [gpuType, ...GAVEL_TRANSFER_ORDER.filter((t) => t !== gpuType)]) {
        if (type === gpuType && scale === gpus) continue;
        const pair = this.gavelPair(type, gpus, scale, a, b, false);
        if (pair) return { normalized: pair, source: 'estimated' };
      }
    }
    return undefined;
  }

  /**
   * Gavel's pair of the two jobs' per-GPU batches at `scale` GPUs on `gpuType`, normalised by each job's
   * isolated throughput there. All-zero pairs (out of memory on that type) count only for the exact lookup:
   * another GPU's memory is judged by the memory model instead.
   */
  private gavelPair(
    gpuType: string,
    gpus: number,
    scale: number,
    a: PairJob,
    b: PairJob,
    allowOutOfMemory: boolean,
  ): readonly [number, number] | undefined {
    if (!this.gavel) return undefined;
    const localA = a.batchSize / gpus;
    const localB = b.batchSize / gpus;
    if (!Number.isInteger(localA) || !Number.isInteger(localB)) return undefined;
    const x = { model: a.model, localBatch: localA };
    const y = { model: b.model, localBatch: localB };
    const co = this.gavel.pair(gpuType, x, y, scale);
    if (!co) return undefined;
    if (co[0] === 0 && co[1] === 0) return allowOutOfMemory ? [0, 0] : undefined;
    const isoA = this.gavel.isolated(gpuType, true, a.model, localA, scale);
    const isoB = this.gavel.isolated(gpuType, true, b.model, localB, scale);
    if (!isoA || !isoB) return undefined;
    return [co[0] / isoA, co[1] / isoB];
  }
}
