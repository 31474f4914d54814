import type { ModelProfile } from '../catalog/models.ts';
import type { GpuTypeId } from '../model/gpu.ts';
import type { PerfCatalog } from './query.ts';
import { GAVEL_WORKER_TYPES } from './sources.ts';
import type { GavelJobType, GavelThroughputTable } from './tables.ts';

/** A single-GPU measurement: seconds per iteration of `localBatch` samples. */
export interface SingleGpuPoint {
  readonly model: string;
  readonly gpuType: GpuTypeId;
  readonly localBatch: number;
  readonly stepSeconds: number;
}

const SEP = '\u0000';

/**
 * Gavel's throughput table indexed by catalog ids: (GPU type, consolidated, model, per-worker batch, scale).
 * Job types without a batch size (A3C, CycleGAN) are filed under the catalog's default batch size.
 */
export class GavelIndex {
  /** Gavel model names that are not in the catalog (their rows are skipped). */
  readonly unknownModels: readonly string[];
  /** Gavel worker types that are not in `GAVEL_WORKER_TYPES` (their rows are skipped). */
  readonly unknownWorkerTypes: readonly string[];
  private readonly isolatedByKey = new Map<string, number>();
  private readonly pairsByKey = new Map<string, readonly [number, number]>();
  private readonly covered = new Set<string>();
  private readonly scalesByJob = new Map<string, number[]>();
  private readonly points: SingleGpuPoint[] = [];

  constructor(table: GavelThroughputTable, catalog: PerfCatalog) {
    const unknownModels = new Set<string>();
    const unknownWorkers = new Set<string>();
    const resolve = (job: GavelJobType): { id: string; batch: number } | undefined => {
      let profile: ModelProfile;
      try {
        profile = catalog.model(job.model);
      } catch {
        unknownModels.add(job.model);
        return undefined;
      }
      return { id: profile.id, batch: job.batchSize ?? profile.defaultBatchSize };
    };
    for (const record of table.records) {
      const gpuType = GAVEL_WORKER_TYPES[record.workerType];
      if (!gpuType) {
        unknownWorkers.add(record.workerType);
        continue;
      }
      const self = resolve(record.job);
      if (!self) continue;
      const scale = record.job.scale;
      if (record.isolated > 0) {
        this.isolatedByKey.set(
          isolatedKey(gpuType, record.consolidated, self.id, self.batch, scale),
          record.isolated,
        );
        this.covered.add(coverKey(gpuType, self.id));
        const jobKey = scaleKey(gpuType, self.id, self.batch);
        const scales = this.scalesByJob.get(jobKey) ?? [];
        if (!scales.includes(scale))
          this.scalesByJob.set(
            jobKey,
            [...scales, scale].sort((x, y) => x - y),
          );
        if (scale === 1 && record.consolidated) {
          this.points.push({
            model: self.id,
            gpuType,
            localBatch: self.batch,
            stepSeconds: 1 / record.isolated,
          });
        }
      }
      if (!record.consolidated) continue;
      for (const pair of record.pairs) {
        const partner = resolve(pair.partner);
        if (!partner || pair.partner.scale !== scale) continue;
        this.pairsByKey.set(
          pairKey(gpuType, self.id, self.batch, partner.id, partner.batch, scale),
          pair.throughputs,
        );
      }
    }
    this.unknownModels = [...unknownModels];
    this.unknownWorkerTypes = [...unknownWorkers];
  }

  /** Whether Gavel measured this model on this GPU type at all. */
  covers(gpuType: GpuTypeId, model: string): boolean {
    return this.covered.has(coverKey(gpuType, model));
  }

  /** Scales (GPU counts) with a measurement of this model and per-worker batch on this type, ascending. */
  scales(gpuType: GpuTypeId, model: string, localBatch: number): readonly number[] {
    return this.scalesByJob.get(scaleKey(gpuType, model, localBatch)) ?? [];
  }

  /** Summed-over-workers iterations per second alone, or undefined when not measured. */
  isolated(
    gpuType: GpuTypeId,
    consolidated: boolean,
    model: string,
    localBatch: number,
    scale: number,
  ): number | undefined {
    return this.isolatedByKey.get(isolatedKey(gpuType, consolidated, model, localBatch, scale));
  }

  /**
   * Co-located throughputs `[a, b]` of two jobs on the same `scale` GPUs (consolidated), or undefined when
   * not measured. Gavel's all-zero pairs at scale > 1 are unmeasured, not out of memory, so they are undefined.
   */
  pair(
    gpuType: GpuTypeId,
    a: { model: string; localBatch: number },
    b: { model: string; localBatch: number },
    scale: number,
  ): readonly [number, number] | undefined {
    const found = this.pairsByKey.get(pairKey(gpuType, a.model, a.localBatch, b.model, b.localBatch, scale));
    if (!found) return undefined;
    if (scale > 1 && found[0] === 0 && found[1] === 0) return undefined;
    return found;
  }

  /** Consolidated single-GPU measurements, for calibration. */
  singleGpuPoints(): readonly SingleGpuPoint[] {
    return this.points;
  }
}

const isolatedKey = (
  gpuType: string,
  consolidated: boolean,
  model: string,
  batch: number,
  scale: number,
): string => `${gpuType}${SEP}${consolidated ? 'c' : 'u'}${SEP}${model}${SEP}${batch}${SEP}${scale}`;

const pairKey = (
  gpuType: string,
  a: string,
  batchA: number,
  b: string,
  batchB: number,
  scale: number,
): string => `${gpuType}${SEP}${a}${SEP}${batchA}${SEP}${b}${SEP}${batchB}${SEP}${scale}`;

const scaleKey = (gpuType: string, model: string, batch: number): string =>
  `${gpuType}${SEP}${model}${SEP}${batch}`;

const coverKey = (gpuType: string, model: string): string => `${gpuType}${SEP}${model}`;
