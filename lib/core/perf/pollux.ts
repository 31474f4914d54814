import type { SingleGpuPoint } from './gavel.ts';
import { accumulatedStep } from './pollux-accumulation.ts';
import { evenSpread, type PerfCatalog } from './query.ts';
import { POLLUX_GPU_TYPE } from './sources.ts';
import type { PolluxTable } from './tables.ts';

/** Seconds per iteration and the synchronisation part of it. */
export interface StepTime {
  readonly stepTime: number;
  readonly syncTime: number;
}

/** A measured placement of `gpus` GPUs spread evenly over `hosts` nodes. */
export interface EvenShape {
  readonly gpus: number;
  readonly hosts: number;
  readonly perNode: readonly number[];
}

interface Point extends StepTime {
  readonly localBatchSize: number;
}

/**
 * Pollux's canonical placement id, as its simulator computes it: the digits (GPUs per node, zeros dropped)
 * rotated to their lexicographically smallest rotation (`[2, 1, 2]` → `122`, `[2, 1]` → `12`).
 */
export const canonicalPlacement = (gpusPerNode: readonly number[]): string => {
  const digits = gpusPerNode.filter((g) => g > 0).map(String);
  let best: string | undefined;
  for (let i = 0; i < digits.length; i++) {
    const rotation = [...digits.slice(i), ...digits.slice(0, i)].join('');
    if (best === undefined || rotation < best) best = rotation;
  }
  return best ?? '';
};

/**
 * Pollux per-placement step times by catalog model id. Like Pollux's simulator, step times between measured
 * per-GPU batch sizes are interpolated linearly; outside the measured range there is no answer.
 */
export class PolluxIndex {
  readonly gpuType = POLLUX_GPU_TYPE;
  /** Application names missing from the catalog (skipped). */
  readonly unknownApplications: readonly string[];
  private readonly byPlacement = new Map<string, Point[]>();
  private readonly byScale = new Map<string, Point[]>();
  private readonly models = new Set<string>();
  private readonly shapesByModel = new Map<string, EvenShape[]>();
  private readonly points: SingleGpuPoint[] = [];
  /** Per model, the largest local batch of its placements.csv: above it a step accumulates gradients. */
  private readonly maxLocalBatch = new Map<string, number>();

  constructor(table: PolluxTable, catalog: PerfCatalog) {
    const unknown: string[] = [];
    for (const app of table.applications) {
      let model: string;
      try {
        model = catalog.model(app.name).id;
      } catch {
        unknown.push(app.name);
        continue;
      }
      this.models.add(model);
      for (const row of app.placements) {
        this.maxLocalBatch.set(model, Math.max(this.maxLocalBatch.get(model) ?? 0, row.localBatchSize));
        append(this.byPlacement, `${model}|${canonicalPlacement([...row.placement].map(Number))}`, row);
        if (row.placement === '1') {
          this.points.push({
            model,
            gpuType: this.gpuType,
            localBatch: row.localBatchSize,
            stepSeconds: row.stepTime,
          });
        }
      }
      for (const row of app.scalability) append(this.byScale, `${model}|${row.nodes}|${row.replicas}`, row);
    }
    for (const model of this.models) this.shapesByModel.set(model, this.findEvenShapes(model));
    for (const list of [...this.byPlacement.values(), ...this.byScale.values()]) {
      list.sort((a, b) => a.localBatchSize - b.localBatchSize);
    }
    this.unknownApplications = unknown;
  }

  hasModel(model: string): boolean {
    return this.models.has(model);
  }

  /** Step time of `model` with `gpusPerNode` GPUs on each node and `localBatch` samples per GPU. */
  step(model: string, gpusPerNode: readonly number[], localBatch: number): StepTime | undefined {
    const max = this.maxLocalBatch.get(model) ?? Number.POSITIVE_INFINITY;
    return accumulatedStep(localBatch, max, (local) => this.measuredStep(model, gpusPerNode, local));
  }

  private measuredStep(
    model: string,
    gpusPerNode: readonly number[],
    localBatch: number,
  ): StepTime | undefined {
    const placed = this.byPlacement.get(`${model}|${canonicalPlacement(gpusPerNode)}`);
    if (placed) return interpolate(placed, localBatch);
    const nodes = gpusPerNode.filter((g) => g > 0).length;
    const replicas = gpusPerNode.reduce((s, g) => s + g, 0);
    const scaled = this.byScale.get(`${model}|${nodes}|${replicas}`);
    return scaled ? interpolate(scaled, localBatch) : undefined;
  }

  /**
   * Placements measured for a model whose GPUs are spread evenly over their nodes (the spread the
   * performance model assumes): from placements.csv and scalability.csv.
   */
  evenShapes(model: string): readonly EvenShape[] {
    return this.shapesByModel.get(model) ?? [];
  }

  private findEvenShapes(model: string): EvenShape[] {
    const shapes = new Map<string, EvenShape>();
    const add = (gpus: number, hosts: number): void => {
      const perNode = evenSpread(gpus, hosts);
      const key = `${gpus}|${hosts}`;
      if (shapes.has(key)) return;
      const found =
        this.byPlacement.has(`${model}|${canonicalPlacement(perNode)}`) ||
        this.byScale.has(`${model}|${hosts}|${gpus}`);
      if (found) shapes.set(key, { gpus, hosts, perNode });
    };
    for (const key of this.byPlacement.keys()) {
      const [m, placement = ''] = key.split('|');
      if (m !== model) continue;
      const digits = [...placement].map(Number);
      add(
        digits.reduce((s, g) => s + g, 0),
        digits.length,
      );
    }
    for (const key of this.byScale.keys()) {
      const [m, nodes, replicas] = key.split('|');
      if (m === model) add(Number(replicas), Number(nodes));
    }
    return [...shapes.values()].sort((a, b) => a.gpus - b.gpus || a.hosts - b.hosts);
  }

  /** Single-GPU measurements, for calibration. */
  singleGpuPoints(): readonly SingleGpuPoint[] {
    return this.points;
  }
}

const append = (map: Map<string, Point[]>, key: string, point: Point): void => {
  const list = map.get(key);
  if (list) list.push(point);
  else map.set(key, [point]);
};

const interpolate = (sorted: readonly Point[], x: number): StepTime | undefined => {
  for (let i = 0; i < sorted.length; i++) {
    const hi = sorted[i];
    if (!hi || hi.localBatchSize < x) continue;
    if (hi.localBatchSize === x) return { stepTime: hi.stepTime, syncTime: hi.syncTime };
    const lo = sorted[i - 1];
    if (!lo) return undefined;
    const t = (x - lo.localBatchSize) / (hi.localBatchSize - lo.localBatchSize);
    return {
      stepTime: lo.stepTime + t * (hi.stepTime - lo.stepTime),
      syncTime: lo.syncTime + t * (hi.syncTime - lo.syncTime),
    };
  }
  return undefined;
};
