import { buildTrace, type ParsedJob } from '../build.ts';
import type { Trace, TraceJob } from '../types.ts';
import { type ArrivalProcess, arrivalTimes } from './arrivals.ts';
import { GAVEL_MODELS, type ModelChoice, pickModel, validateModels } from './models.ts';
import { Random } from './random.ts';

/** A job's size: how many GPUs and how long it runs (seconds on the reference hardware). */
export interface JobShape {
  gpus: number;
  duration: number;
  labels?: Record<string, string>;
}

/** Draws one job size; the only randomness it may use is `rng`. */
export type ShapeSampler = (rng: Random) => JobShape;

export interface WorkloadOptions {
  /** Trace name, e.g. the builtin spec `gavel:900:80`. */
  name: string;
  jobs: number;
  arrivals: ArrivalProcess;
  sampler: ShapeSampler;
  seed: number;
  /** Models drawn for the jobs; default Gavel's job types. */
  models?: readonly ModelChoice[];
  /** Job ids are `<idPrefix>-<n>`; default `job`. */
  idPrefix?: string;
  /** GPUs per host of the hardware the sampled durations mean (the sizes' source's convention); none = unknown. */
  referenceHostGpus?: number;
}

/** Independent random streams, so e.g. a new arrival rate keeps the same job sizes and models. */
const STREAM = { arrivals: 0, shapes: 1, models: 2 } as const;

/** A seeded synthetic trace: arrival process × size sampler × model list. Pure: same options, same trace. */
export const generateWorkload = (options: WorkloadOptions): Trace => {
  const {
    name,
    jobs,
    arrivals,
    sampler,
    seed,
    models = GAVEL_MODELS,
    idPrefix = 'job',
    referenceHostGpus,
  } = options;
  if (!(Number.isInteger(jobs) && jobs > 0))
    throw new RangeError(`jobs must be a positive integer, got ${jobs}`);
  validateModels(models);
  const times = arrivalTimes(arrivals, jobs, new Random(seed, STREAM.arrivals));
  const shapeRng = new Random(seed, STREAM.shapes);
  const modelRng = new Random(seed, STREAM.models);
  const width = String(jobs - 1).length;
  const parsed: ParsedJob[] = times.map((submitTime, i) => {
    const shape = sampler(shapeRng);
    const choice = pickModel(modelRng, models, shape.gpus);
    const job: TraceJob = {
      id: `${idPrefix}-${String(i).padStart(width, '0')}`,
      submitTime,
      gpus: shape.gpus,
      duration: shape.duration,
      model: choice.model,
    };
    if (choice.batchSize !== undefined) job.batchSize = choice.batchSize * shape.gpus;
    if (shape.labels !== undefined) job.labels = shape.labels;
    return { job, line: i };
  });
  return buildTrace(name, 'generated', `${name} (seed ${seed})`, parsed, [], referenceHostGpus);
};
