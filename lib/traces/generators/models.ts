import type { Trace } from '../types.ts';
import { Random } from './random.ts';

/** A model (and batch size) a generated or model-less job may get, with its relative weight. */
export interface ModelChoice {
  model: string;
  /** Batch of one GPU worker (Gavel's convention); a job on n GPUs gets a global batch of n × this. */
  batchSize?: number;
  /** Relative probability; default 1. */
  weight?: number;
  /** Largest GPU count the model is offered for (e.g. models measured only on one GPU); default unlimited. */
  maxGpus?: number;
}

const gavelFamily = (model: string, batchSizes: readonly number[], maxGpus?: number): ModelChoice[] =>
  batchSizes.map((batchSize) =>
    maxGpus === undefined ? { model, batchSize } : { model, batchSize, maxGpus },
  );

/**
 * Gavel's job types (the rows of the shared `gavel/simulation_throughputs.json`), equally likely as
 * in Gavel's generator. Recommendation, A3C and CycleGAN are measured on one GPU only, so Gavel
 * gives them only single-GPU jobs; `maxGpus: 1` keeps that rule.
 */
export const GAVEL_MODELS: readonly ModelChoice[] = [
  ...gavelFamily('resnet18', [16, 32, 64, 128, 256]),
  ...gavelFamily('resnet50', [16, 32, 64, 128]),
  ...gavelFamily('transformer', [16, 32, 64, 128, 256]),
  ...gavelFamily('lm', [5, 10, 20, 40, 80]),
  ...gavelFamily('recommendation', [512, 1024, 2048, 4096, 8192], 1),
  { model: 'a3c', maxGpus: 1 },
  { model: 'cyclegan', maxGpus: 1 },
];

/** Throws a RangeError naming the first bad entry of a model list. */
export const validateModels = (models: readonly ModelChoice[]): void => {
  if (models.length === 0) throw new RangeError('models: the list is empty');
  models.forEach((m, i) => {
    const where = `models[${i}] (${m.model})`;
    if (m.model.trim() === '') throw new RangeError(`models[${i}]: model must be a non-empty id`);
    if (m.batchSize !== undefined && !(Number.isInteger(m.batchSize) && m.batchSize > 0))
      throw new RangeError(`${where}: batchSize must be a positive integer, got ${m.batchSize}`);
    if (m.weight !== undefined && !(Number.isFinite(m.weight) && m.weight >= 0))
      throw new RangeError(`${where}: weight must be a number ≥ 0, got ${m.weight}`);
    if (m.maxGpus !== undefined && !(Number.isInteger(m.maxGpus) && m.maxGpus > 0))
      throw new RangeError(`${where}: maxGpus must be a positive integer, got ${m.maxGpus}`);
  });
  if (models.every((m) => (m.weight ?? 1) === 0)) throw new RangeError('models: every weight is 0');
};

/** Draws a model for a job of `gpus` GPUs among the entries that allow that many. */
export const pickModel = (rng: Random, models: readonly ModelChoice[], gpus: number): ModelChoice => {
  const eligible = models.filter(
    (m) => (m.maxGpus === undefined || gpus <= m.maxGpus) && (m.weight ?? 1) > 0,
  );
  const chosen = eligible[rng.weightedIndex(eligible.map((m) => m.weight ?? 1))];
  if (chosen === undefined)
    throw new RangeError(`models: no entry with weight > 0 allows a ${gpus}-GPU job (see maxGpus)`);
  return chosen;
};

export interface AssignModelsOptions {
  models: readonly ModelChoice[];
  seed: number;
}

/**
 * Gives every job that lacks a model one drawn by weight from `models` (among those allowing its
 * GPU count), with the entry's batch size when the job has none. Jobs that name a model keep it.
 * Same seed, same assignment.
 */
export const assignModels = (trace: Trace, { models, seed }: AssignModelsOptions): Trace => {
  validateModels(models);
  const rng = new Random(seed);
  const jobs = trace.jobs.map((job) => {
    if (job.model !== undefined) return job;
    const choice = pickModel(rng, models, job.gpus);
    const batchSize =
      job.batchSize ?? (choice.batchSize === undefined ? undefined : choice.batchSize * job.gpus);
    return batchSize === undefined
      ? { ...job, model: choice.model }
      : { ...job, model: choice.model, batchSize };
  });
  return { ...trace, jobs };
};
