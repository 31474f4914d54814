import { shapeOf } from '../core/framework/free-gpus.ts';
import type { Host } from '../core/model/cluster.ts';
import type { JobState } from '../core/model/job.ts';
import type { PerfModel } from '../core/model/perf.ts';
import { type ModelMeasurement, UserModelPerfModel, userModelEntries } from '../core/perf/user-models.ts';
import type { TraceJob } from '../traces/types.ts';
import { rowModel } from './workload.ts';

/**
 * Models outside the catalog in the simulator. The scheduler is told what a job spec would tell it (the declared
 * profile, or the conservative estimate); the executor runs the model as it really is (`actualProfile`, default the
 * same figures). Each round, like the AWS round with its Profiles table, the scheduler's figures are calibrated from
 * every throughput the executor reported so far for jobs running alone (lib/aws/round/model-estimates.ts).
 */

export interface TraceModels {
  /** The scheduler's model; `base` when the trace names no model outside the catalog. */
  readonly perf: PerfModel;
  /** The executor's model before its hidden deviations (lib/sim/ground-truth.ts wraps it). */
  readonly truth: PerfModel;
}

export const traceModels = (rows: readonly TraceJob[], base: PerfModel): TraceModels => {
  const specs = rows.flatMap((row) => {
    const resolved = rowModel(row);
    if (typeof resolved === 'string' || !resolved.userModel) return [];
    return [{ ...resolved, gpus: row.gpus, actualProfile: row.actualProfile }];
  });
  if (specs.length === 0) return { perf: base, truth: base };
  const told = userModelEntries(specs);
  const real = userModelEntries(specs, (s) =>
    s.actualProfile ? { name: s.userModel!.name, profile: s.actualProfile } : s.userModel,
  );
  return { perf: new UserModelPerfModel(base, told), truth: new UserModelPerfModel(base, real) };
};

/** Throughput reports of user-model jobs, summed per model and placement, as the Profiles table keeps them. */
export class SimulatedProfiles {
  private readonly sums = new Map<
    string,
    { m: Omit<ModelMeasurement, 'iterationsPerSecond'>; sum: number }
  >();
  private current: PerfModel;
  private changed = false;

  constructor(private readonly told: UserModelPerfModel) {
    this.current = told;
  }

  /** One report per running job alone on its GPUs (what an agent sends every interval). */
  record(jobs: readonly JobState[], hostOf: (id: string) => Host | undefined): void {
    for (const job of jobs) {
      const a = job.allocation;
      const ips = job.measuredThroughput;
      if (!a || a.packedWith || !(ips !== undefined && ips > 0) || !this.told.entries.has(job.spec.model))
        continue;
      const shape = shapeOf(a, hostOf);
      const key = `${job.spec.model}|${job.spec.batchSize}|${a.gpuType}|${shape.gpus}|${shape.level}|${shape.hosts}`;
      const entry = this.sums.get(key) ?? {
        m: {
          model: job.spec.model,
          batchSize: job.spec.batchSize,
          gpuType: a.gpuType,
          gpus: shape.gpus,
          level: shape.level,
          hosts: shape.hosts,
          samples: 0,
        },
        sum: 0,
      };
      this.sums.set(key, { m: { ...entry.m, samples: entry.m.samples + 1 }, sum: entry.sum + ips });
      this.changed = true;
    }
  }

  /** The scheduler's model calibrated with every report so far (rebuilt only when a report came in). */
  perf(): PerfModel {
    if (this.changed) {
      const measurements = [...this.sums.values()].map(({ m, sum }) => ({
        ...m,
        iterationsPerSecond: sum / m.samples,
      }));
      this.current = new UserModelPerfModel(this.told.base, this.told.entries, { measurements });
      this.changed = false;
    }
    return this.current;
  }
}
