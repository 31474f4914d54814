import type { ModelProfile } from '../catalog/models.ts';
import { type ModelBasis, type UserModelRef, userModelProfile } from '../catalog/user-models.ts';
import type { JobSpec } from '../model/job.ts';
import type {
  ColocationEstimate,
  ModelRef,
  PerfModel,
  ThroughputEstimate,
  ThroughputQuery,
} from '../model/perf.ts';
import type { Level } from '../model/topology.ts';
import { AnalyticPerfModel } from './analytic.ts';
import { cannotRun, packedEstimate } from './packing.ts';
import { commParametersFor, DEFAULT_PERF_PARAMETERS, type PerfParameters } from './parameters.ts';
import { DEFAULT_PERF_CATALOG, type PerfCatalog } from './query.ts';

/**
 * The performance model for a round whose jobs name models outside the catalog (pure). Catalog models keep the
 * base model; a user model is answered by the analytic model on its declared profile or conservative estimate
 * (catalog/user-models.ts), with a compute-time multiplier fitted to the throughput measured for it so far: one
 * measurement on one placement corrects the estimate on every placement (the communication stays the model's).
 * A model without a declared profile is never co-located: nobody knows how much memory it really needs.
 */

export interface UserModelEntry {
  readonly profile: ModelProfile;
  readonly basis: ModelBasis;
  /** An estimated model runs on no fewer GPUs than its job asked for: its memory need per GPU is a guess. */
  readonly minGpus?: number;
}

/** Every user model the jobs name, by model id (the id digests the figures, so jobs sharing an id agree on them). */
export type UserModelSpec = Pick<JobSpec, 'model' | 'batchSize' | 'gpus' | 'gpuTypes' | 'userModel'>;

export const userModelEntries = <S extends UserModelSpec>(
  specs: Iterable<S>,
  refOf: (spec: S) => UserModelRef | undefined = (spec) => spec.userModel,
): Map<string, UserModelEntry> => {
  const entries = new Map<string, UserModelEntry>();
  for (const spec of specs) {
    const ref = refOf(spec);
    if (!ref || entries.has(spec.model)) continue;
    entries.set(spec.model, {
      profile: userModelProfile(spec.model, ref, spec),
      ...(ref.profile ? { basis: 'declared' } : { basis: 'estimated', minGpus: spec.gpus }),
    });
  }
  return entries;
};

/** Throughput measured for a model on one placement (alone on its GPUs), over `samples` reports. */
export interface ModelMeasurement {
  readonly model: string;
  readonly batchSize: number;
  readonly gpuType: string;
  readonly gpus: number;
  readonly level: Level;
  readonly hosts: number;
  readonly iterationsPerSecond: number;
  readonly samples: number;
}

/** What the round knows about a user model: its basis, and once measured the fitted multiplier and its samples. */
export interface UserModelStatus {
  readonly basis: ModelBasis | 'calibrated';
  readonly computeScale?: number;
  readonly samples?: number;
}

/** Compute-time multipliers outside this range are a broken report, not a model (1/20 … 20 × the estimate). */
const SCALE_LIMIT = 20;

/**
 * The compute-time multiplier s that makes the analytic step time equal a measured one: step(s) = s·C + max(0,
 * G − o·⅔·s·K) + P (compute C and kernel K at s = 1, gradient sync G, overlap o, pipeline transfers P), which
 * grows with s, solved in closed form. Undefined when the model does not fit there or the report is unusable.
 */
export const fitComputeScale = (analytic: AnalyticPerfModel, m: ModelMeasurement): number | undefined => {
  if (!(m.iterationsPerSecond > 0)) return undefined;
  const b = analytic.breakdown({
    model: m.model,
    batchSize: m.batchSize,
    gpuType: m.gpuType,
    gpus: m.gpus,
    shape: { level: m.level, hosts: m.hosts },
  });
  if (!b.fits || !(b.computeSeconds > 0)) return undefined;
  const step = 1 / m.iterationsPerSecond;
  const hidden = commParametersFor(analytic.parameters, m.model).overlap * (2 / 3) * b.kernelSeconds;
  const P = b.modelParallelCommSeconds;
  const G = b.gradientSyncSeconds;
  let s = (step - P) / b.computeSeconds; // communication fully hidden
  if (G - hidden * s > 0 && b.computeSeconds > hidden) s = (step - G - P) / (b.computeSeconds - hidden);
  if (!(s > 0)) return 1 / SCALE_LIMIT;
  return Math.min(SCALE_LIMIT, Math.max(1 / SCALE_LIMIT, s));
};

export interface UserModelOptions {
  /** Parameters of the analytic model for user models; the base model's analytic parameters by default. */
  readonly parameters?: PerfParameters;
  /** Throughput measured so far (the Profiles table, the simulator's executor): calibrates user models. */
  readonly measurements?: readonly ModelMeasurement[];
}

export class UserModelPerfModel implements PerfModel {
  readonly name: string;
  readonly analytic: AnalyticPerfModel;
  private readonly status = new Map<string, UserModelStatus>();

  constructor(
    readonly base: PerfModel,
    readonly entries: ReadonlyMap<string, UserModelEntry>,
    options: UserModelOptions = {},
  ) {
    this.name = `${base.name}+user-models`;
    const parameters = options.parameters ?? parametersOf(base);
    const baseCatalog = catalogOf(base);
    const catalog: PerfCatalog = {
      model: (name) => entries.get(name)?.profile ?? baseCatalog.model(name),
      gpu: (id) => baseCatalog.gpu(id),
    };
    const raw = new AnalyticPerfModel({ parameters, catalog });
    const fitted = fitScales(raw, entries, options.measurements ?? []);
    for (const [id, entry] of entries) {
      const fit = fitted.get(id);
      this.status.set(
        id,
        fit ? { basis: 'calibrated', computeScale: fit.scale, samples: fit.samples } : { basis: entry.basis },
      );
    }
    const computeScale = { ...parameters.computeScale };
    for (const [id, fit] of fitted) computeScale[id] = fit.scale;
    this.analytic = new AnalyticPerfModel({ parameters: { ...parameters, computeScale }, catalog });
  }

  /** Where a model's figures come from this round: `catalog` for catalog models. */
  statusOf(model: string): UserModelStatus | { readonly basis: 'catalog' } {
    return this.status.get(model) ?? { basis: 'catalog' };
  }

  throughput(query: ThroughputQuery): ThroughputEstimate {
    const partner = query.partner;
    if (partner && (this.entries.has(query.model) || this.entries.has(partner.model))) {
      const alone = this.throughput({ ...query, partner: undefined });
      return packedEstimate(alone, this.colocation(query.gpuType, query.gpus, query, partner));
    }
    const entry = this.entries.get(query.model);
    if (!entry) return this.base.throughput(query);
    if (entry.minGpus !== undefined && query.gpus < entry.minGpus) return cannotRun('estimated');
    const estimate = this.analytic.throughput(query);
    return entry.basis === 'estimated' && this.status.get(query.model)?.basis !== 'calibrated'
      ? { ...estimate, source: 'estimated' }
      : estimate;
  }

  colocation(gpuType: string, gpus: number, a: ModelRef, b: ModelRef): ColocationEstimate {
    const ea = this.entries.get(a.model);
    const eb = this.entries.get(b.model);
    if (!ea && !eb) return this.base.colocation(gpuType, gpus, a, b);
    if (ea?.basis === 'estimated' || eb?.basis === 'estimated')
      return { normalized: [0, 0], source: 'estimated' };
    return this.analytic.colocation(gpuType, gpus, a, b);
  }
}

/** Per user model, the samples-weighted geometric mean of the multipliers its measurements imply. */
const fitScales = (
  raw: AnalyticPerfModel,
  entries: ReadonlyMap<string, UserModelEntry>,
  measurements: readonly ModelMeasurement[],
): Map<string, { scale: number; samples: number }> => {
  const sums = new Map<string, { log: number; samples: number }>();
  for (const m of measurements) {
    if (!entries.has(m.model) || !(m.samples > 0)) continue;
    const s = fitComputeScale(raw, m);
    if (s === undefined) continue;
    const sum = sums.get(m.model) ?? { log: 0, samples: 0 };
    sums.set(m.model, { log: sum.log + Math.log(s) * m.samples, samples: sum.samples + m.samples });
  }
  return new Map(
    [...sums].map(([id, s]) => [id, { scale: Math.exp(s.log / s.samples), samples: s.samples }]),
  );
};

/** A model that wraps an analytic one (composite, analytic) lends its calibrated parameters; else the defaults. */
const parametersOf = (base: PerfModel): PerfParameters => {
  const own = base as { parameters?: PerfParameters; analytic?: { parameters?: PerfParameters } };
  return own.analytic?.parameters ?? own.parameters ?? DEFAULT_PERF_PARAMETERS;
};

const catalogOf = (base: PerfModel): PerfCatalog => {
  const own = base as { catalog?: PerfCatalog; analytic?: { catalog?: PerfCatalog } };
  return own.analytic?.catalog ?? own.catalog ?? DEFAULT_PERF_CATALOG;
};

/** `base` when no job names a user model; otherwise the model that also answers for them. */
export const withUserModels = (
  base: PerfModel,
  specs: Iterable<UserModelSpec>,
  options: UserModelOptions = {},
): PerfModel => {
  const entries = userModelEntries(specs);
  return entries.size === 0 ? base : new UserModelPerfModel(base, entries, options);
};
